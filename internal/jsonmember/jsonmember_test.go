package jsonmember

import "testing"

func TestProblem(t *testing.T) {
	names := []string{"name", "arguments"}
	for in, want := range map[string]string{
		`{"name":"a","arguments":{"name":1,"name":2}}`: "",
		`{"name":"a","name":"b"}`:                      `member "name" is given twice`,
		`{"na\u006de":"a","name":"b"}`:                 `member "name" is given twice`,
		`{"NAME":"a"}`:                                 `unknown member "NAME" (member names are case-sensitive: did you mean "name"?)`,
		`[{"name":1,"name":2}]`:                        "",
		`{"name":"a`:                                   "",
	} {
		if got := Problem([]byte(in), names, "member"); got != want {
			t.Errorf("Problem(%s) = %q, want %q", in, got, want)
		}
	}
}

func FuzzProblem(f *testing.F) {
	f.Add([]byte(`{"name":"a","NAME":"b","x":[{"name":1}]}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		_ = Problem(p, []string{"name", "id"}, "field")
	})
}

package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestDecodeTypedErrorNamesProperty: a value the schema let through (a
// string) that a typed handler's field could not take — a `,string` int
// given "abc", a time.Time given "yesterday", a []byte given "!!" that is
// not base64 — failed with encoding/json's own words, which name no field
// ("json: invalid use of ,string struct tag, trying to unmarshal \"abc\"
// into int64", "parsing time \"yesterday\" …", "illegal base64 data at
// input byte 0"): a caller of a tool with many string properties could not
// tell which one was wrong. The error now says where, as a JSON pointer
// into the params ("at /when: …"), nested objects and arrays included.
func TestDecodeTypedErrorNamesProperty(t *testing.T) {
	type item struct {
		When time.Time `json:"when"`
	}
	type in struct {
		Count int64     `json:"count,string"`
		When  time.Time `json:"when"`
		Blob  []byte    `json:"blob"`
		Items []item    `json:"items"`
		Meta  struct {
			Sub struct {
				At time.Time `json:"at"`
			} `json:"sub/x"`
		} `json:"meta"`
		Name string `json:"name"`
	}
	good := map[string]any{"count": "3", "when": "2024-01-02T03:04:05Z", "blob": "YWI=", "name": "n"}
	for _, c := range []struct {
		key  string
		bad  any
		want string
	}{
		{"count", "abc", "at /count: "},
		{"count", int64(3), "at /count: "},
		{"when", "yesterday", "at /when: "},
		{"blob", "!!", "at /blob: "},
		{"items", []any{map[string]any{"when": "2024-01-02T03:04:05Z"}, map[string]any{"when": "soon"}}, "at /items/1/when: "},
		{"meta", map[string]any{"sub/x": map[string]any{"at": "later"}}, "at /meta/sub~1x/at: "},
	} {
		p := map[string]any{}
		for k, v := range good {
			p[k] = v
		}
		p[c.key] = c.bad
		var dst in
		err := DecodeTyped(p, &dst)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s = %#v: error %v, want one starting %q", c.key, c.bad, err, c.want)
		}
		if c.key == "when" && err != nil && !strings.Contains(err.Error(), `parsing time "yesterday"`) {
			t.Errorf("%v: encoding/json's words lost", err)
		}
	}
	// encoding/json's own type errors, which name the Go field, are kept.
	var dst in
	err := DecodeTyped(map[string]any{"name": int64(5)}, &dst)
	if err == nil || !strings.Contains(err.Error(), "in.name") {
		t.Errorf("name = 5: %v, want encoding/json's error naming in.name", err)
	}
	if err := DecodeTyped(good, &dst); err != nil || dst.Count != 3 || dst.Name != "n" {
		t.Errorf("good params: %v, %+v", err, dst)
	}
}

// needsName checks, in its own UnmarshalJSON, that "name" is there.
type needsName struct {
	Name string `json:"name"`
	Age  int64  `json:"age"`
}

func (n *needsName) UnmarshalJSON(b []byte) error {
	type plain needsName
	if err := json.Unmarshal(b, (*plain)(n)); err != nil {
		return err
	}
	if n.Name == "" {
		return errors.New("needsName: name is missing")
	}
	return nil
}

// TestDecodeTypedErrorBlamesNoInnocentProperty: the JSON pointer is of the
// member whose value fails, not of one that fails only when alone (a type
// whose UnmarshalJSON wants another member): {"age": 3} for a type that
// needs "name" is not "at /age"; of two members that fail, the one whose
// failure encoding/json reports is named.
func TestDecodeTypedErrorBlamesNoInnocentProperty(t *testing.T) {
	var dst needsName
	err := DecodeTyped(map[string]any{"age": int64(3), "zeta": true}, &dst)
	if err == nil || err.Error() != "needsName: name is missing" {
		t.Fatalf("%v, want the type's own error, unprefixed", err)
	}
	var two struct {
		When time.Time `json:"when"`
		Blob []byte    `json:"blob"`
	}
	err = DecodeTyped(map[string]any{"when": "soon", "blob": "!!"}, &two)
	if err == nil || !strings.HasPrefix(err.Error(), "at /blob: illegal base64") && !strings.HasPrefix(err.Error(), "at /when: parsing time") {
		t.Fatalf("%v, want the member whose failure encoding/json reports named", err)
	}
}

// fragile's UnmarshalJSON panics when "b" is missing (as one written for
// the whole params may) and fails when "a" is "bad".
type fragile struct{ A, B any }

func (f *fragile) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	_ = m["b"][0] // panics when "b" is missing
	if string(m["a"]) == `"bad"` {
		return errors.New("fragile: a is bad")
	}
	return nil
}

// TestDecodeTypedNamingNeverPanics: naming the failing member decodes
// parts of the params on their own, which a type's UnmarshalJSON written
// for the whole params may panic on: the caller's InvalidParams must stay
// one (a panic in the guest is ProviderCrashed), with the type's own error.
func TestDecodeTypedNamingNeverPanics(t *testing.T) {
	var dst fragile
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("DecodeTyped panicked: %v", r)
			}
		}()
		err = DecodeTyped(map[string]any{"a": "bad", "b": int64(1)}, &dst)
	}()
	if err == nil || err.Error() != "fragile: a is bad" {
		t.Fatalf("%v, want the type's own error", err)
	}
}

package config

import "testing"

// TestWrongKindSaysWhatToWrite: a section, an entry, a map, a list or a
// single value written as another kind (agents: [a], limits: x, a path
// given as a list) was refused naming a Go type only ("into
// map[string]config.Agent", "into config.Limits", "into js.Config"), where
// a rate, a duration or a count said what to write. Each says it now, in
// the file and in a section decoded by its owner alike.
func TestWrongKindSaysWhatToWrite(t *testing.T) {
	const (
		mapping = " (want a mapping of names to values, such as name: value)"
		keys    = " (want a mapping of keys, such as key: value)"
		list    = " (want a list such as [a, b])"
		single  = " (want a single value, not a list or a mapping)"
	)
	for _, tc := range []struct{ yaml, want string }{
		{"agents: [a]\n", "c.yaml:1: agents: cannot unmarshal !!seq into map[string]config.Agent" + mapping},
		{"trust:\n  folders: [plugins]\n", "c.yaml:2: trust.folders: cannot unmarshal !!seq into map[string]string" + mapping},
		{"runtimes: [js]\n", "c.yaml:1: runtimes: cannot unmarshal !!seq into map[string]yaml.Node" + mapping},
		{"limits: 5\n", "c.yaml:1: limits: cannot unmarshal !!int `5` into config.Limits" + keys},
		{"providers:\n  org.x.y: [a]\n", `c.yaml:2: providers["org.x.y"]: cannot unmarshal !!seq into config.ProviderOverride` + keys},
		{"42\n", "c.yaml:1: cannot unmarshal !!int `42` into config.Config" + keys},
		{"plugins: {a: b}\n", "c.yaml:1: plugins: cannot unmarshal !!map into []string" + list},
		{"data: [/srv/aios]\n", "c.yaml:1: data: cannot unmarshal !!seq into string" + single},
		{"inference:\n  url: {host: x}\n", "c.yaml:2: inference.url: cannot unmarshal !!map into string" + single},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.yaml, err, tc.want)
		}
	}
	cfg, err := Parse([]byte("runtimes:\n  js: [process]\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type jsSection struct {
		Isolation string `yaml:"isolation"`
	}
	var js jsSection
	want := "c.yaml:2: runtimes.js: cannot unmarshal !!seq into config.jsSection" + keys
	if err := cfg.Decode(cfg.Runtimes["js"], "runtimes.js", &js); err == nil || err.Error() != want {
		t.Errorf("section:\n got %v\nwant %s", err, want)
	}
}

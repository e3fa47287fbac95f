package config

import (
	"path/filepath"
	"testing"
)

// TestIntegerPastUint64: the range check added for a whole number past
// its field's range (TestIntegerTooLarge) saw only what yaml.v3 tags !!int,
// which is what fits in an int64 or a uint64; a whole number past that
// (99999999999999999999, -9223372036854775809) yaml.v3 tags !!float, and it
// was still refused with "want an integer, got 99999999999999999999", which
// it is. A negative one past the range now says too small, not too large.
func TestIntegerPastUint64(t *testing.T) {
	for _, tc := range []struct{ v, want string }{
		{"99999999999999999999", "99999999999999999999 is too large (at most 9223372036854775807)"},
		{"18446744073709551616", "18446744073709551616 is too large (at most 9223372036854775807)"},
		{"-9223372036854775809", "-9223372036854775809 is too small (at least -9223372036854775808)"},
		{"4.5", "want an integer, got 4.5"},
		{"1e30", "want an integer, got 1e30"},
	} {
		_, err := Parse([]byte("limits:\n  max_object_bytes: "+tc.v+"\n"), "c.yaml")
		if want := "c.yaml:2: limits.max_object_bytes: " + tc.want; err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", tc.v, err, want)
		}
	}
}

// TestWhere (no defect): Where is the one helper for "FILE:LINE" of
// a key path, which server, discovery and mcpserver each had a copy of
// (mcpserver's the third, added with its line numbers).
func TestWhere(t *testing.T) {
	var none *Config
	if got := none.Where("x"); got != "config" {
		t.Errorf("nil config: %q", got)
	}
	if got := Default().Where("limits"); got != "config" {
		t.Errorf("no file: %q", got)
	}
	c, err := Parse([]byte("limits:\n  max_call_depth: 3\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"limits.max_call_depth": "c.yaml:2", "limits.max_params_bytes": "c.yaml:1"} {
		if got := c.Where(path); got != want {
			t.Errorf("Where(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestTrustSourceNotAPath: TrustAppliesTo took every source but a
// URL for a path and resolved it against the working directory, so a
// source the host gives that is no file — a built-in provider's
// "builtin", an MCP bridge's "mcp:<command line>", a provider
// registered with none — was "inside" a bound folder that holds the
// working directory (source: . , or ~ with the host started in the home
// folder), and got the level bound to that folder. Such a source now
// matches only exactly; the files discovery loads are named by absolute
// paths, which are compared as before.
func TestTrustSourceNotAPath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	o := ProviderOverride{Trust: "System", Source: "."}
	for source, want := range map[string]bool{
		"":                          false,
		"builtin":                   false,
		"mcp:notes --api-key=x":     false,
		"mcp:/usr/bin/mcp-notes":    false,
		dir + "/tool.wasm":          true,
		dir:                         true,
		filepath.Dir(dir) + "/x.js": false,
	} {
		if got := o.TrustAppliesTo(source); got != want {
			t.Errorf("source . (the working directory %s), provider from %q: applies = %v, want %v", dir, source, got, want)
		}
	}
	if !(ProviderOverride{Trust: "System", Source: "builtin"}).TrustAppliesTo("builtin") {
		t.Error("source builtin: does not apply to the provider from builtin")
	}
}

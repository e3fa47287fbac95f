package config

import "testing"

// TestMaxPluginBytesZeroRefused: limits.max_plugin_bytes: 0 was taken
// and read as the default 256 MiB, where 0 of the other sizes
// (max_space_bytes, min_free_bytes, audit.max_bytes) means none, while -1
// was refused as "must be positive". 0 is refused as -1 is, saying there
// is no unlimited; a positive size is taken.
func TestMaxPluginBytesZeroRefused(t *testing.T) {
	for _, v := range []string{"0", "-1"} {
		_, err := Parse([]byte("limits:\n  max_plugin_bytes: "+v+"\n"), "c.yaml")
		want := "c.yaml:2: limits.max_plugin_bytes: must be positive, got " + v + " (there is no unlimited; the default is 268435456)"
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", v, err, want)
		}
	}
	c, err := Parse([]byte("limits:\n  max_plugin_bytes: 1048576\n"), "c.yaml")
	if err != nil || c.Limits.MaxPluginBytes != 1<<20 {
		t.Errorf("1 MiB: %v", err)
	}
}

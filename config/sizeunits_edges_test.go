package config

import "testing"

// TestSizeUnitsSayBytes: a size written with a unit (max_object_bytes:
// 10MiB, as other tools' configurations take it) was refused as "cannot
// unmarshal !!str `10MiB` into int64 (want a whole number)", leaving the
// reader to work out that the key takes bytes and how many 10MiB is. The
// error says the key's unit and the number to write, in the file and in a
// section decoded by its owner (runtimes.js.process_memory_mib) alike.
func TestSizeUnitsSayBytes(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"limits:\n  max_object_bytes: 10MiB\n", `c.yaml:2: limits.max_object_bytes: "10MiB" has a unit: the key takes a whole number of bytes, without one: write 10485760`},
		{"limits:\n  max_params_bytes: 2 GiB\n", `c.yaml:2: limits.max_params_bytes: "2 GiB" has a unit: the key takes a whole number of bytes, without one: write 2147483648`},
		{"audit:\n  max_bytes: 10MB\n", `c.yaml:2: audit.max_bytes: "10MB" has a unit: the key takes a whole number of bytes, without one: write 10000000 (10 MB) or 10485760 (10 MiB)`},
		{"limits:\n  min_free_bytes: 1.5G\n", `c.yaml:2: limits.min_free_bytes: "1.5G" has a unit: the key takes a whole number of bytes, without one: write 1500000000 (1.5 GB) or 1610612736 (1.5 GiB)`},
		{"limits:\n  max_space_bytes: 512k\n", `c.yaml:2: limits.max_space_bytes: "512k" has a unit: the key takes a whole number of bytes, without one: write 512000 (512 kB) or 524288 (512 KiB)`},
		{"limits:\n  max_space_bytes: 100B\n", `c.yaml:2: limits.max_space_bytes: "100B" has a unit: the key takes a whole number of bytes, without one: write 100`},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.yaml, err, tc.want)
		}
	}
	// A section's key in MiB.
	cfg, err := Parse([]byte("runtimes:\n  js:\n    process_memory_mib: 2GiB\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		ProcessMemoryMiB int `yaml:"process_memory_mib"`
	}
	want := `c.yaml:3: runtimes.js.process_memory_mib: "2GiB" has a unit: the key takes a whole number of MiB, without one: write 2048`
	if err := cfg.Decode(cfg.Runtimes["js"], "runtimes.js", &js); err == nil || err.Error() != want {
		t.Errorf("section:\n got %v\nwant %s", err, want)
	}
	// A word that is no size is still a type error.
	_, err = Parse([]byte("limits:\n  max_object_bytes: lots\n"), "c.yaml")
	if want := "c.yaml:2: limits.max_object_bytes: cannot unmarshal !!str `lots` into int64 (want a whole number)"; err == nil || err.Error() != want {
		t.Errorf("lots:\n got %v\nwant %s", err, want)
	}
}

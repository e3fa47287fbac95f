package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestLongFileNameLoads: a component without an aios-provider id is
// named component.<file stem>; a stem of 250 characters (a file name may
// have 255 bytes) made an id past the 255 characters a provider id may
// have, and the load failed with 'invalid provider id "component.aaa…":
// want reverse-domain form', an id the author never wrote. The stem is cut
// at 128 characters, as abi.LocalProviderID cuts the other runtimes'.
func TestLongFileNameLoads(t *testing.T) {
	// jco parse of (component (core module $m (func (export "f") (result i32)
	// i32.const 1)) (core instance $i (instantiate $m)) (func $f (result u32)
	// (canon lift (core func $i "f"))) (export "f" (func $f)))
	b, err := hex.DecodeString("0061736d0d000100012d0061736d010000000105016000017f03020100070501016600000a0601040041010b0009046e616d650002016d0204010000000705014000007906070100000100016608060100000000000b070100016601000000260e636f6d706f6e656e742d6e616d65010600110100016d010600120100016901050101000166")
	if err != nil {
		t.Fatal(err)
	}
	for _, stem := range []string{strings.Repeat("a", 250), strings.Repeat("Ab_", 80)} {
		p, err := New(context.Background(), b, "/plugins/"+stem+".wasm", "", Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatalf("%d-character stem: %v", len(stem), err)
		}
		id := p.Describe().Provider.ID
		p.Close()
		if err := abi.ValidateProviderID(id); err != nil || !strings.HasPrefix(id, "component.") {
			t.Fatalf("%d-character stem: id %q: %v", len(stem), id, err)
		}
	}
}

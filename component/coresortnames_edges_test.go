package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
)

// TestCoreModuleNamedInRefusals: a component that imports, exports or
// aliases a core module, none of which aios-host runs, was refused naming
// the sort by its first byte alone, "a core" ('import "cm" of a core is
// not supported', 'reference to a core is not supported', 'alias of core
// exports is not supported'), which says neither what was found nor what
// to change. Each names the core module. The components are `jco parse`
// of
//
//	import: (import "cm" (core module))
//	export: (export "cm" (core module $m))
//	alias:  (import "x:y/z" (instance $x (export "cm" (core module))))
//	        (alias export $x "cm" (core module $cm))
//
// each beside a core module $m exporting f and (export "f" (func $ff)) of
// its canon lift.
func TestCoreModuleNamedInRefusals(t *testing.T) {
	for _, tc := range []struct{ name, hex, want string }{
		{"import", "0061736d0d00010003030150000a08010002636d001100012d0061736d010000000105016000017f03020100070501016600000a0601040041070b0009046e616d650002016d0204010001000705014000007906070100000100016608060100000000000b070100016601000000270e636f6d706f6e656e742d6e616d65010600110101016d01060012010001690106010100026666", `import "cm" of a core module is not supported`},
		{"export", "0061736d0d000100012d0061736d010000000105016000017f03020100070501016600000a0601040041070b0009046e616d650002016d0204010000000705014000007906070100000100016608060100000000000b0f020002636d0011000000016601000000270e636f6d706f6e656e742d6e616d65010600110100016d01060012010001690106010100026666", "reference to a core module is not supported"},
		{"alias", "0061736d0d000100070e014202005000040002636d0011000a0a010005783a792f7a05000608010011000002636d012d0061736d010000000105016000017f03020100070501016600000a0601040041070b0009046e616d650002016d0204010001000705014000007906070100000100016608060100000000010b070100016601000000320e636f6d706f6e656e742d6e616d65010a0011020002636d01016d0106001201000169010601010002666601050501000178", "alias of core module exports is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := hex.DecodeString(tc.hex)
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(context.Background(), b, "cm.wasm", "", Options{CacheDir: t.TempDir()})
			if err == nil {
				p.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cm.wasm") {
				t.Fatalf("err = %v, want it to name the file and say %q", err, tc.want)
			}
		})
	}
}

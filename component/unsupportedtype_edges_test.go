package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
)

// TestUnsupportedTypeNamed: a function of an exported interface whose
// type the host cannot serve (a resource handle, a stream) was refused with
// "export put: function  parameter s: own: resource handles are not
// supported at run time": the function's name blank (an instance exports a
// lifted function that has no name of its own), the interface left out, and
// the handle's resource unnamed. The error names the export as
// interface#function, the function, and own<resource>. Both are `jco parse`
// of
//
//	(component
//	  (import "wasi:io/streams@0.2.0" (instance $s (export "output-stream" (type (sub resource)))))
//	  (alias export $s "output-stream" (type $os))
//	  (core module $m (func (export "f") (param i32)))
//	  (core instance $i (instantiate $m))
//	  (type $ft (func (param "s" (own $os))))            ;; stream: (param "s" (stream u8))
//	  (func $f (type $ft) (canon lift (core func $i "f")))
//	  (instance $a (export "put" (func $f)))             ;; stream: "consume"
//	  (export "x:y/io" (instance $a)))
func TestUnsupportedTypeNamed(t *testing.T) {
	for _, c := range []struct{ name, hex, want string }{
		{"own", "0061736d0d000100071501420104000d6f75747075742d73747265616d03010a1a010015776173693a696f2f73747265616d7340302e322e3005000612010300000d6f75747075742d73747265616d012b0061736d0100000001050160017f0003020100070501016600000a040102000b0009046e616d650002016d020401000000070a026901400101730201000607010000010001660806010000000003050a010101000370757401000b0c010006783a792f696f050100003c0e636f6d706f6e656e742d6e616d65010600110100016d010600120100016901050101000166010a030201026f730302667401080502000173010161",
			"export x:y/io#put: function put parameter s: own<output-stream>: resource handles are not supported"},
		{"stream", "0061736d0d000100012b0061736d0100000001050160017f0003020100070501016600000a040102000b0009046e616d650002016d020401000000070b0266017d400101730001000607010000010001660806010000000001050e0101010007636f6e73756d6501000b0c010006783a792f696f05000000380e636f6d706f6e656e742d6e616d65010600110100016d010600120100016901050101000166010903020001730102667401050501000161",
			"export x:y/io#consume: function consume parameter s: stream: async values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := hex.DecodeString(c.hex)
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(context.Background(), b, "u.wasm", "", Options{CacheDir: t.TempDir()})
			if err == nil {
				p.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, c.want)
			}
		})
	}
}

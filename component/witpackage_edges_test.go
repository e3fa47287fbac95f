package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
)

// TestWITPackageNotLoaded: a WIT package in its binary encoding (what
// `wasm-tools component wit --wasm` writes and registries publish: a
// component of types alone) is a component by its header, and it loaded as
// a provider of no tools without a word: in the plugins folder ("provider
// added … tools=0") and in `aios-host inspect`, which printed an empty
// `world root {}`, exit 0, the package's interfaces nowhere. It is refused,
// saying it is a WIT package and that `aios-host wit` prints it; a
// component with code and no exports is not one and still loads. The
// package is the corpus's kinds-of-deps/deps/e.wasm (package e:e,
// interface e {}).
func TestWITPackageNotLoaded(t *testing.T) {
	b, err := hex.DecodeString("0061736d0d0001000710014102014200040105653a652f6505000b0701000165030000")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "e.wasm", "", Options{CacheDir: t.TempDir()})
	if err == nil {
		n := len(p.Describe().Tools)
		p.Close()
		t.Fatalf("a WIT package loaded as a provider of %d tools", n)
	}
	if msg := err.Error(); !strings.Contains(msg, "e.wasm") || !strings.Contains(msg, "WIT package") || !strings.Contains(msg, "aios-host wit") {
		t.Fatalf("err = %v, want it to name the file, say it is a WIT package and that aios-host wit prints it", err)
	}
	// A component with a core module and nothing exported is no package:
	// it is refused as offering no tools (TestNoExportedFunctionsRefused).
	b, err = hex.DecodeString("0061736d0d00010001080061736d01000000")
	if err != nil {
		t.Fatal(err)
	}
	p, err = New(context.Background(), b, "empty.wasm", "", Options{CacheDir: t.TempDir()})
	if err == nil {
		p.Close()
		t.Fatal("a component with an empty core module and no export loaded")
	}
	if msg := err.Error(); strings.Contains(msg, "WIT package") || !strings.Contains(msg, "exports no functions") {
		t.Fatalf("a component with an empty core module: %v, want it refused as exporting no functions, not as a WIT package", err)
	}
}

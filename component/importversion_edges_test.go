package component

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// envVersionHex are `jco parse` of this component, one per version V of
// wasi:cli/environment (3: 0.3.0, 2: 0.2.99): it lowers get-arguments and
// returns the number of arguments.
//
//	(component
//	  (import "wasi:cli/environment@V" (instance $env (export "get-arguments" (func (result (list string))))))
//	  (core module $m0 (memory (export "mem") 1) (func (export "realloc") (param i32 i32 i32 i32) (result i32) i32.const 1024))
//	  … (core func $gac (canon lower (func $ga) (memory $mem) (realloc $ra)))
//	  (core module $m (import "e" "ga" (func $ga (param i32))) (import "e" "mem" (memory 1))
//	    (func (export "run") (result i32) (call $ga (i32.const 8)) (i32.load (i32.const 12))))
//	  … (func (export "run") (result u32) (canon lift (core func $i "run"))))
var envVersionHex = map[int]string{
	3: "0061736d0d000100071d014203017073014000000004000d6765742d617267756d656e747301010a1f01001a776173693a636c692f656e7669726f6e6d656e7440302e332e30050001440061736d0100000001090160047f7f7f7f017f030201000503010001071102036d656d0200077265616c6c6f6300000a070105004180080b000a046e616d650003026d3002040100000006260300020100036d656d00000100077265616c6c6f630100000d6765742d617267756d656e7473080901010000020300040001540061736d0100000001090260017f006000017f021102016502676100000165036d656d020001030201010707010372756e00010a0d010b0041081000410c2802000b0010046e616d650002016d0105010002676102150201020267610001036d656d02000001010165120107050140000079060901000001020372756e08060100000200010b0901000372756e01010000530e636f6d706f6e656e742d6e616d65010c000002000272610103676163010800020100036d656d010a00110200026d3001016d010d001203000269300101650201690106010100026761010705010003656e76",
	2: "0061736d0d000100071d014203017073014000000004000d6765742d617267756d656e747301010a2001001b776173693a636c692f656e7669726f6e6d656e7440302e322e3939050001440061736d0100000001090160047f7f7f7f017f030201000503010001071102036d656d0200077265616c6c6f6300000a070105004180080b000a046e616d650003026d3002040100000006260300020100036d656d00000100077265616c6c6f630100000d6765742d617267756d656e7473080901010000020300040001540061736d0100000001090260017f006000017f021102016502676100000165036d656d020001030201010707010372756e00010a0d010b0041081000410c2802000b0010046e616d650002016d0105010002676102150201020267610001036d656d02000001010165120107050140000079060901000001020372756e08060100000200010b0901000372756e01010000530e636f6d706f6e656e742d6e616d65010c000002000272610103676163010800020100036d656d010a00110200026d3001016d010d001203000269300101650201690106010100026761010705010003656e76",
}

// TestImportVersionChecked: the host dropped the version of every imported
// interface before looking it up, so a component built against
// wasi:cli/environment@0.3.0 (or aios:sdk/log@9.0.0) loaded and was
// answered by the WASI 0.2 (aios:sdk 0.1) functions, whose types another
// major version need not share. A WASI 0.2.x (aios:sdk 0.1.x) import of any
// patch version is still taken; another version is refused at load as an
// import the host does not provide, naming it.
func TestImportVersionChecked(t *testing.T) {
	b, err := hex.DecodeString(envVersionHex[3])
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "env03.wasm", "", Options{CacheDir: t.TempDir()})
	if err == nil {
		p.Close()
		t.Fatal("a component importing wasi:cli/environment@0.3.0 loaded")
	}
	if !strings.Contains(err.Error(), "wasi:cli/environment@0.3.0") || !strings.Contains(err.Error(), "does not provide") {
		t.Errorf("%v, want it to name wasi:cli/environment@0.3.0 as not provided", err)
	}
	p2 := loadHexComponent(t, envVersionHex[2], "env02.wasm")
	if v, err := call(t, p2, &fakeEnv{}, "run", map[string]any{}); err != nil || fmt.Sprint(v) != "0" {
		t.Errorf("wasi:cli/environment@0.2.99: %v %v, want 0 arguments", v, err)
	}
	for _, c := range []struct {
		iface string
		ok    bool
	}{
		{"wasi:io/streams@0.2.0", true}, {"wasi:io/streams@0.2.12", true}, {"wasi:io/streams@0.3.0", false},
		{"wasi:io/streams@1.0.0", false}, {"aios:sdk/log@0.1.0", true}, {"aios:sdk/log@0.1.3", true},
		{"aios:sdk/log@0.2.0", false}, {"aios:sdk/log@1.0.0", false},
		{"wasi:io/streams@0.2.0-rc-2023-11-10", false}, {"wasi:io/streams@0.2.1+build.5", true},
		{"wasi:io/streams@0.2.", false}, {"wasi:io/streams@0.2.x", false}, {"aios:sdk/log@0.1.0-alpha", false},
	} {
		fn := "[resource-drop]output-stream"
		if strings.HasPrefix(c.iface, "aios:sdk/") {
			fn = "log"
		}
		if _, ok := hostImpl(c.iface, fn, nil); ok != c.ok {
			t.Errorf("%s %s: provided %v, want %v", c.iface, fn, ok, c.ok)
		}
	}
}

// TestPrereleaseImportRefused: a component built against a release
// candidate of WASI 0.2 (wasi:cli/environment@0.2.0-rc-2023-11-10, as
// toolchains of late 2023 wrote) loaded, its imports answered by the WASI
// 0.2 functions, whose types a release candidate's need not share (found
// at stop 43). It is refused at load, saying it is a pre-release and what
// to do.
func TestPrereleaseImportRefused(t *testing.T) {
	name03, nameRC := "wasi:cli/environment@0.3.0", "wasi:cli/environment@0.2.0-rc-2023-11-10"
	// The import section (id 0x0a) holds one import, named name03: its
	// size and the name's length grow with the name.
	from := fmt.Sprintf("0a%02x01001a%s", 31, hex.EncodeToString([]byte(name03)))
	to := fmt.Sprintf("0a%02x0100%02x%s", 31+len(nameRC)-len(name03), len(nameRC), hex.EncodeToString([]byte(nameRC)))
	if !strings.Contains(envVersionHex[3], from) {
		t.Fatal("the test component's import section is not where the test expects it")
	}
	b, err := hex.DecodeString(strings.Replace(envVersionHex[3], from, to, 1))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "envrc.wasm", "", Options{CacheDir: t.TempDir()})
	if err == nil {
		p.Close()
		t.Fatal("a component importing " + nameRC + " loaded")
	}
	for _, want := range []string{nameRC, "pre-release", "rebuild"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want …%s…", err, want)
		}
	}
}

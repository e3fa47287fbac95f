package wasm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A core module that carries a component's WIT (the custom section
// component-type:WORLD that `jco embed`, `wasm-tools component embed` and
// wit-bindgen write) is a component's author's module before `jco new` /
// `wasm-tools component new`. Dropped in a plugin folder (or given to
// `aios-host inspect`) it was refused as an ABI v1 guest only: "missing
// export(s) aios_alloc, …; imports aios:sdk/log@0.1.0.log, but the host
// offers only the functions of the modules aios and wasi_snapshot_preview1",
// which sent the author to docs/abi.md and said nothing of the step left
// out. The error now says first what the file is and how to make the
// component.
func TestEmbeddedWITModuleSaysMakeComponent(t *testing.T) {
	src := `(module
  (import "aios:sdk/log@0.1.0" "log" (func (param i32 i32 i32)))
  (memory (export "memory") 1)
  (func (export "hello") (param i32 i32) (result i32) (i32.const 0)))`
	bin, err := os.ReadFile(buildWAT(t, src))
	if err != nil {
		t.Fatal(err)
	}
	// A custom section (id 0): size, name, payload.
	name, payload := "component-type:hello", []byte{0x00, 0x61, 0x73, 0x6d}
	body := append(append([]byte{byte(len(name))}, name...), payload...)
	bin = append(append(bin, 0, byte(len(body))), body...)
	path := filepath.Join(t.TempDir(), "hello.embed.wasm")
	if err := os.WriteFile(path, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p, err := e.load(t, Config{}, abi.Source{Path: path})
			if err == nil {
				p.Close()
				t.Fatal("loaded")
			}
			msg := err.Error()
			for _, want := range []string{"hello.embed.wasm", `custom section "component-type:hello"`, "jco new", "wasm-tools component new"} {
				if !strings.Contains(msg, want) {
					t.Errorf("load error %q\ndoes not say %q", msg, want)
				}
			}
		})
	}
	// A module without the section is told of ABI v1 alone.
	p, err := edgeEngines[0].load(t, Config{}, abi.Source{Path: buildWAT(t, src)})
	if err == nil {
		p.Close()
		t.Fatal("loaded")
	}
	if strings.Contains(err.Error(), "component") {
		t.Errorf("plain module's error %q speaks of components", err)
	}
}

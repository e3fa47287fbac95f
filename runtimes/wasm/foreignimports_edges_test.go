package wasm

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestForeignImportsGroupedWithHint: a Go program built with GOOS=js
// instead of GOOS=wasip1 (a newcomer's first try: "GOARCH=wasm" is what
// the Go wiki shows) imports some twenty functions of the module gojs;
// the load error listed each as its own "imports gojs.…, but the host
// offers only …" (a screenful) and never said what was wrong with the
// build. The imports of one module the host does not offer are one
// problem, naming the first few and how many more, and a gojs import
// tells to build with GOOS=wasip1 -buildmode=c-shared; on both engines.
func TestForeignImportsGroupedWithHint(t *testing.T) {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"org.test.gojs"},"tools":[{"name":"go"}]}`)
	var imports strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&imports, `(import "gojs" "runtime.f%d" (func (param i32)))`, i)
	}
	imports.WriteString(`(import "env" "printf" (func (param i32 i32) (result i32)))`)
	src := fmt.Sprintf(`(module %s (memory (export "memory") 2) %s
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`, imports.String(), d, reg)
	path := buildWAT(t, src)
	for engine, l := range probeLoaders(t, Config{}, nil) {
		t.Run(engine, func(t *testing.T) {
			p, err := l.Load(context.Background(), abi.Source{Path: path})
			if err == nil {
				p.Close()
				t.Fatal("loaded")
			}
			msg := err.Error()
			if n := strings.Count(msg, "offers only the functions"); n != 2 {
				t.Errorf("want one problem for the module gojs and one for env, got %d: %v", n, err)
			}
			for _, want := range []string{"gojs.runtime.f0", "9 more functions of the module gojs", "GOOS=wasip1", "-buildmode=c-shared", "env.printf"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the load error does not say %q: %v", want, err)
				}
			}
			if strings.Contains(msg, "gojs.runtime.f11") {
				t.Errorf("the load error lists every gojs import: %v", err)
			}
			t.Log(err)
		})
	}
}

package wasm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestGoCommandGuestSaysBuildMode: a newcomer builds a Go guest
// without -buildmode=c-shared (a WASI command). Its load failed with the Go
// runtime's "call _start first", which is not the fix; the error now says
// to build it with -buildmode=c-shared.
func TestGoCommandGuestSaysBuildMode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go guest")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	src := `package main

import aios "github.com/aios-host/aios-host/guest/go"

func init() {
	aios.Register(aios.Provider{ID: "org.example.cmd"})
	aios.Handle(aios.Tool{Name: "x"}, func(c *aios.Call, p any) (any, error) { return 1, nil })
}

func main() {}
`
	mod := "module example.com/cmd\n\ngo 1.26.0\n\nrequire github.com/aios-host/aios-host v0.0.0\n\nreplace github.com/aios-host/aios-host => " + testutil.RepoRoot(t) + "\n"
	for name, text := range map[string]string{"main.go": src, "go.mod": mod} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "cmd.wasm")
	build := exec.Command(goBin, "build", "-o", out, ".") // no -buildmode=c-shared
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=-mod=mod")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	l := newTestLoader(t, Config{}, nil)
	_, err = l.Load(context.Background(), abi.Source{Path: out})
	if err == nil {
		t.Fatal("a Go WASI command loaded")
	}
	if !strings.Contains(err.Error(), "-buildmode=c-shared") {
		t.Fatalf("error %q does not say to build with -buildmode=c-shared", err)
	}
}

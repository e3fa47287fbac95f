//go:build wasmtime

package wasmtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestFlagResultsRefused: wasmtime v39 lifts a flags result in Rust and
// panics on a bit set past the type's labels (values.rs "index out of
// bounds"), and a panic across its C API aborts the host process. A
// component a tool of which returns flags (kitchen's transform returns a
// record holding flags perms {read, write, exec}) is refused with
// FlagResultsError, which the host answers by loading it on wazero;
// AllowFlagResults loads it for a component known to keep to its labels.
func TestFlagResultsRefused(t *testing.T) {
	l := newLoader(t, Options{})
	_, err := l.Load(context.Background(), abi.Source{Path: sample(t, "kitchen")})
	var fe *FlagResultsError
	if !errors.As(err, &fe) || fe.Tool != "transform" || fe.Type != "perms" || fe.Labels != 3 {
		t.Fatalf("load of kitchen: %v, want a FlagResultsError naming transform and perms", err)
	}
	// A component without flags results loads as before.
	if p, err := l.Load(context.Background(), abi.Source{Path: sample(t, "hello")}); err != nil {
		t.Fatal(err)
	} else {
		_ = p.Close()
	}
	l2 := newLoader(t, Options{AllowFlagResults: true})
	p := loadWT(t, l2, "kitchen")
	item := map[string]any{"name": "w", "tags": []any{}, "color": "red", "perms": []any{"read"},
		"shape": map[string]any{"tag": "empty"}, "note": nil, "count": int64(1)}
	if _, err := callP(p, &fakeEnv{}, "transform", map[string]any{"item": item}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

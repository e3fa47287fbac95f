package component

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCollidingInterfaceNamesBothQualified: two exported interfaces of
// one short name (x:y/api and p:q/api), each with a function f, were
// named by export order: the first took "api.f" and only the second got
// its full interface name, so "api.f" was whichever came first and
// nothing in the name said which package it was, where
// docs/components.md says that when "<interface short name>.<function>"
// collides, the full interface name is used. Both are now named by their
// full interface names, and each calls its own function.
func TestCollidingInterfaceNamesBothQualified(t *testing.T) {
	inst := sec(5,
		cat([]byte{0x01, 0x01, 0x00}, str("f"), []byte{0x01, 0x00}),
		cat([]byte{0x01, 0x01, 0x00}, str("f"), []byte{0x01, 0x01}))
	b := twoFuncsComponent(inst, sec(11,
		cat([]byte{0x00}, str("x:y/api"), []byte{0x05, 0x00, 0x00}),
		cat([]byte{0x00}, str("p:q/api"), []byte{0x05, 0x01, 0x00})))
	p, err := New(context.Background(), b, "names.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var names []string
	for _, d := range p.Describe().Tools {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	want := []string{"p_q_api.f", "x_y_api.f"}
	if len(names) != len(want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("tools %v, want %v", names, want)
		}
	}
	for tool, v := range map[string]int64{"x_y_api.f": 1, "p_q_api.f": 2} {
		got, err := p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(time.Minute)}, &fakeEnv{})
		if err != nil || got != v {
			t.Errorf("call %s: %v (%T), %v; want %d", tool, got, got, err, v)
		}
	}
}

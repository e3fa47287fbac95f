package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestSearchDeniedSaysWhy: a newcomer's unsigned tool asks for
// ReadSpace(documents), its trust level drops it, and it reads an object
// by id alone (JS ctx.spaces.read(id)). The refusal must say that the
// provider asked for it but its trust level does not allow it, and how to
// give it (it said only "no space is readable by both").
func TestSearchDeniedSaysWhy(t *testing.T) {
	te := newTestHost(t, nil)
	p := native.New(abi.ProviderInfo{ID: "org.test.newcomer", Capabilities: []string{"ReadSpace(documents)"}})
	p.MustRegister(abi.ToolDef{Name: "newcomer-read", Version: "1.0.0", Parameters: obj(map[string]any{"id": str}, "id")},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			_, err := env.SpaceRead(ctx, "", params.(map[string]any)["id"].(string))
			return nil, err
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	id := "sha256:" + strings.Repeat("0", 64)
	_, err := te.call("alice", "newcomer-read", map[string]any{"id": id})
	if abi.CodeOf(err) != abi.CapabilityDenied {
		t.Fatalf("got %v, want CapabilityDenied", err)
	}
	for _, want := range []string{"org.test.newcomer", "ReadSpace(documents)", "trust level Untrusted does not allow it", "trust.folders"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// A nested caller without ReadSpace: the message says it is the caller.
	_, err = te.call("alice", "nested", map[string]any{"tool": "newcomer-read", "params": map[string]any{"id": id}})
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "trust level Untrusted") {
		t.Fatalf("nested: %v", err)
	}
	// A caller without any ReadSpace, of a provider holding ReadSpace(*).
	_, err = te.call("limited", "read", map[string]any{"space": "", "id": id})
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "the caller holds no ReadSpace grant") {
		t.Fatalf("caller without ReadSpace: %v", err)
	}
}

// TestMisspeltParamHint: a call with `objectid` (or `objectId`) for
// the required `object_id` said only "missing required property
// "object_id"", leaving the newcomer to find the misspelling; it now names
// the member it probably meant.
func TestMisspeltParamHint(t *testing.T) {
	te := newTestHost(t, nil)
	for _, bad := range []map[string]any{{"mesg": "x"}, {"MSG": "x"}, {"m-s_g": "x"}} {
		_, err := te.call("alice", "echo", bad)
		if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), `did you mean "msg"?`) {
			t.Errorf("params %v: %v; want InvalidParams naming msg", bad, err)
		}
	}
	// Unrelated members get no guess.
	if _, err := te.call("alice", "echo", map[string]any{"zzzzzz": 1}); abi.CodeOf(err) != abi.InvalidParams || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("unrelated member: %v", err)
	}
}

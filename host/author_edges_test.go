package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestCapabilityKindTypo: a first tool asking for
// "ReadSpaces(docs)" (or requiring "Netwrk(h)") loaded, and the only word
// about it was "provider capabilities reduced by trust policy ...
// dropped=[ReadSpaces(docs)] ... trust level does not allow them" — at
// Community trust as at Untrusted — sending its author to sign the card
// or vouch for the folder, which would never help: no grant is of that
// kind. The config refuses such a grant ("did you mean ReadSpace?"); a
// provider's request and a tool's capability_required are now refused
// the same way, naming the provider.
func TestCapabilityKindTypo(t *testing.T) {
	te := newTestHost(t, nil)
	ok := func(context.Context, any, abi.Env) (any, error) { return "ok", nil }
	p := native.New(abi.ProviderInfo{ID: "org.test.typo", Capabilities: []string{"ReadSpaces(docs)"}})
	p.MustRegister(abi.ToolDef{Name: "typo-a", Version: "1.0.0"}, ok)
	err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "typo.js", Trust: abi.Community})
	if err == nil {
		t.Fatal("provider asking for ReadSpaces(docs) was registered")
	}
	for _, want := range []string{"org.test.typo", "typo.js", `"ReadSpaces(docs)"`, "did you mean ReadSpace?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	q := native.New(abi.ProviderInfo{ID: "org.test.typo2"})
	q.MustRegister(abi.ToolDef{Name: "typo-b", Version: "1.0.0", CapabilityRequired: []string{"Netwrk(api.example.com)"}}, ok)
	err = te.h.AddProvider(context.Background(), q, ProviderMeta{Source: "typo2.js", Trust: abi.Community})
	if err == nil || !strings.Contains(err.Error(), "typo-b") || !strings.Contains(err.Error(), "did you mean Network?") {
		t.Fatalf("tool requiring Netwrk(...): %v", err)
	}
	// A custom kind far from every built-in one is still accepted.
	r := native.New(abi.ProviderInfo{ID: "org.test.custom", Capabilities: []string{"Billing(team-a)"}})
	r.MustRegister(abi.ToolDef{Name: "custom-c", Version: "1.0.0", CapabilityRequired: []string{"Camera"}}, ok)
	if err := te.h.AddProvider(context.Background(), r, ProviderMeta{Source: "custom.js", Trust: abi.Community}); err != nil {
		t.Fatalf("custom kinds: %v", err)
	}
}

// TestSpaceReadSwappedArgs: ctx.spaces.read('docs', id) — the space
// first, as the Go guest SDK's c.SpaceRead(space, id) has it — failed
// `ObjectId "docs": want "sha256:" followed by 64 lower-case hex digits`,
// leaving the author to see that the id is in the other argument. When
// the space argument is itself an ObjectId the message now says the
// arguments look swapped.
func TestSpaceReadSwappedArgs(t *testing.T) {
	te := newTestHost(t, nil)
	id := "sha256:" + strings.Repeat("0", 64)
	_, err := te.call("alice", "read", map[string]any{"space": id, "id": "source"})
	if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), "swapped") {
		t.Fatalf("swapped arguments: %v", err)
	}
	_, err = te.call("alice", "read", map[string]any{"space": "source", "id": "nonsense"})
	if abi.CodeOf(err) != abi.InvalidParams || strings.Contains(err.Error(), "swapped") {
		t.Fatalf("a bad id alone: %v", err)
	}
}

// TestRequiredUndeclaredWarned: a hand-written parameters schema whose
// "required" names a property its "properties" do not declare (a rename
// done in one place: properties {n}, required ["m"]) registered without a
// word, and every call failed "missing required property "m"" — with
// additionalProperties: false no call could ever succeed. Registration now
// warns, naming the tool and the property.
func TestRequiredUndeclaredWarned(t *testing.T) {
	h, logs := loggedHost(t)
	ok := func(context.Context, any, abi.Env) (any, error) { return "ok", nil }
	p := native.New(abi.ProviderInfo{ID: "org.test.req"})
	p.MustRegister(abi.ToolDef{Name: "req-typo", Version: "1.0.0", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}},
		"required": []any{"m"}, "additionalProperties": false}}, ok)
	p.MustRegister(abi.ToolDef{Name: "req-fine", Version: "1.0.0", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []any{"n"}}}, ok)
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "req.js", Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "req-typo") || !strings.Contains(out, `\"m\"`) || !strings.Contains(out, "can never succeed") {
		t.Errorf("no warning naming req-typo and m:\n%s", out)
	}
	if strings.Contains(out, "req-fine") {
		t.Errorf("a correct schema warned about:\n%s", out)
	}
}

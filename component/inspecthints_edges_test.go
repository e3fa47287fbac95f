package component

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestInspectShowsComponentGrantsAndHints: inspect of a core module or a
// script shows the grants its provider asks for ("requests: …"), each
// tool's version, what its callers need and its permission level and
// latency class, in the text and in --json. A component's aios-provider
// section sets all of them, but its inspect showed no request and no
// version, its text said "requires [ReadSpace(docs)]" where a module's
// says "callers need: ReadSpace(docs)", and its --json left out
// capability_required, version, permission_level and latency_class,
// so an author could not see there what the host would be asked for and
// what a caller would need. A component shows them as a module does.
func TestInspectShowsComponentGrantsAndHints(t *testing.T) {
	js := `{"id": "org.x.y", "version": "2.0.0", "capabilities": ["ReadSpace(docs)"],
		"tools": {"f": {"capability_required": ["ReadSpace(docs)"], "permission_level": "high", "latency_class": "slow"}}}`
	in, err := Inspect(context.Background(), withMetaJSON(t, js), "meta.wasm")
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := in.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"requests: ReadSpace(docs)\n", "tool f 2.0.0\n", "callers need: ReadSpace(docs)\n", "permission level high, latency class slow\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}
	b, err := json.Marshal(in.JSON())
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Provider struct {
			Capabilities []string `json:"capabilities"`
		} `json:"provider"`
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Provider.Capabilities) != 1 || got.Provider.Capabilities[0] != "ReadSpace(docs)" || len(got.Tools) != 1 {
		t.Fatalf("--json: %s", b)
	}
	tl := got.Tools[0]
	caps, _ := tl["capability_required"].([]any)
	if tl["version"] != "2.0.0" || len(caps) != 1 || caps[0] != "ReadSpace(docs)" || tl["permission_level"] != "high" || tl["latency_class"] != "slow" {
		t.Fatalf("--json tool %v lacks its version, capability_required, permission_level or latency_class", tl)
	}
	// Without a section: the registry's default version, no request.
	plain, err := Inspect(context.Background(), withMetaJSON(t, `{}`), "plain.wasm")
	if err != nil {
		t.Fatal(err)
	}
	text.Reset()
	if err := plain.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "tool f 1.0.0\n") || strings.Contains(text.String(), "requests:") {
		t.Fatalf("a component without metadata:\n%s", text.String())
	}
}

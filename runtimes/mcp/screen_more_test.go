package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// hidden reports whether s still holds what screening should remove.
func hidden(s string) bool {
	for _, r := range s {
		if r == 0x1b || r >= 0xE0000 && r <= 0xE01EF || r >= 0xFE00 && r <= 0xFE0F {
			return true
		}
	}
	return false
}

// TestScreenRPCError: a JSON-RPC error's message is screened too (a probe
// found it reached the caller unscreened).
func TestScreenRPCError(t *testing.T) {
	p, _, _ := poisonBridge(t, "")
	_, err := call(t, p, "mcp-fake-rpcerr", map[string]any{}, 5*time.Second)
	if err == nil {
		t.Fatal("no error")
	}
	if msg := abi.AsToolError(err, abi.Internal).Message; hidden(msg) {
		t.Fatalf("JSON-RPC error text not screened: %q", msg)
	}
}

// TestScreenServerTitle: serverInfo.title, which becomes the provider's
// description, is screened.
func TestScreenServerTitle(t *testing.T) {
	p, _, _ := poisonBridge(t, "")
	if d := p.Describe().Provider.Description; hidden(d) {
		t.Fatalf("server title not screened: %q", d)
	}
}

// TestScreenVariationSelectors: bytes smuggled in variation selectors
// are stripped and reported.
func TestScreenVariationSelectors(t *testing.T) {
	p, _, logs := poisonBridge(t, "")
	d, ok := toolDef(p, "mcp-fake-vsmuggle")
	if !ok {
		t.Fatal("not imported")
	}
	if hidden(d.Description) {
		t.Fatalf("variation-selector smuggling kept in the description (%d bytes, log: %v): %q", len(d.Description), strings.Contains(logs.String(), "vsmuggle"), d.Description)
	}
}

// TestScreenDeep: strings nested as deep as the pipeline accepts (512
// levels) are screened.
func TestScreenDeep(t *testing.T) {
	p, _, _ := poisonBridge(t, "")
	v, err := call(t, p, "mcp-fake-deep", map[string]any{}, 5*time.Second)
	if err != nil {
		t.Fatalf("the nested result was refused: %v", err)
	}
	b, _ := json.Marshal(v)
	var back any
	_ = json.Unmarshal(b, &back)
	if s := string(b); strings.Contains(s, `\u001b`) || hidden(s) {
		t.Fatalf("escape and tag characters at depth 300 not screened: ...%s", s[len(s)-400:])
	}
}

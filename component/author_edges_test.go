package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
)

// TestMetaKeyTypoHint: a misspelt key in a component's aios-provider
// section was refused in encoding/json's words, `json: unknown field
// "capabilites"`; it now names the key meant and the keys there are, as the
// config, Adapter Cards and tool.aios.yaml do.
func TestMetaKeyTypoHint(t *testing.T) {
	b, err := hex.DecodeString(metaHex["key"])
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "meta.wasm", "", Options{})
	if err == nil {
		p.Close()
		t.Fatal("loaded")
	}
	for _, want := range []string{`unknown key "capabilites"`, `did you mean "capabilities"?`, "known: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

package component

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// withMetaJSON returns metaHex["ok"] (a component of one function f whose
// only core module carries an aios-provider section) with that section's
// JSON replaced by js.
func withMetaJSON(t *testing.T, js string) []byte {
	t.Helper()
	b, err := hex.DecodeString(metaHex["ok"])
	if err != nil {
		t.Fatal(err)
	}
	uleb := func(p []byte) (uint64, int) { v, n := binary.Uvarint(p); return v, n }
	// The component's first section is its core module (id 1).
	if b[8] != 1 {
		t.Fatalf("section 0 has id %d", b[8])
	}
	size, n := uleb(b[9:])
	mod := b[9+n : 9+n+int(size)]
	rest := b[9+n+int(size):]
	// The module's custom section aios-provider.
	name := []byte("\x0daios-provider")
	i := bytes.Index(mod, name)
	if i < 0 {
		t.Fatal("no aios-provider section")
	}
	// mod[i-2] is the section id 0, mod[i-1] its one-byte size.
	secSize := int(mod[i-1])
	if mod[i-2] != 0 || secSize >= 0x80 {
		t.Fatalf("unexpected section header % x", mod[i-2:i])
	}
	payload := append(append([]byte(nil), name...), js...)
	var newMod []byte
	newMod = append(newMod, mod[:i-2]...)
	newMod = append(newMod, 0)
	newMod = binary.AppendUvarint(newMod, uint64(len(payload)))
	newMod = append(newMod, payload...)
	newMod = append(newMod, mod[i+secSize:]...)
	out := append([]byte(nil), b[:8]...)
	out = append(out, 1)
	out = binary.AppendUvarint(out, uint64(len(newMod)))
	out = append(out, newMod...)
	return append(out, rest...)
}

// Every runtime registers the same ToolDef (seed 000 §9.1): a JS, Python,
// Go-guest or native tool can set its version, tags, examples, hints,
// permission level, deprecation and mcp_exportable (§10.4: "only tools
// marked mcp_exportable: true" are served to MCP clients). A component's
// aios-provider section took only description, parameters, returns and
// capability_required per tool, and refused the others as unknown keys,
// so a component's tool could not be exported over MCP by its author,
// marked idempotent or deprecated, or given a permission level. tools.NAME
// takes every member of a ToolRegister's tool but its name now.
func TestComponentToolHints(t *testing.T) {
	js := `{"id": "org.x.y", "version": "2.0.0", "tools": {"f": {"description": "d", "version": "2.1.0",
		"tags": ["image"], "examples": ["{\"a\": 1}"], "idempotent": true, "latency_class": "fast",
		"permission_level": "low", "mcp_exportable": true,
		"deprecation": {"since": "2.1.0", "message": "use g", "replacement": "g"}}}}`
	p, err := New(context.Background(), withMetaJSON(t, js), "meta.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("a section with every tool member: %v", err)
	}
	defer p.Close()
	d := p.Describe().Tools[0]
	if d.Name != "f" || d.Description != "d" || d.Version != "2.1.0" || !slices.Equal(d.Tags, []string{"image"}) ||
		!slices.Equal(d.Examples, []string{`{"a": 1}`}) || !d.Idempotent || d.LatencyClass != abi.LatencyFast ||
		d.PermissionLevel != abi.PermissionLow || !d.MCPExportable || !d.Deprecated ||
		d.Deprecation == nil || *d.Deprecation != (abi.Deprecation{Since: "2.1.0", Message: "use g", Replacement: "g"}) {
		t.Fatalf("tool f registered as %+v", d)
	}

	// Without a version of its own a tool keeps the provider's.
	p2, err := New(context.Background(), withMetaJSON(t, `{"id": "org.x.y", "version": "2.0.0", "tools": {"f": {"deprecated": true}}}`), "meta.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	if d := p2.Describe().Tools[0]; d.Version != "2.0.0" || !d.Deprecated || d.MCPExportable {
		t.Fatalf("tool f registered as %+v", d)
	}

	// A misspelt member is still refused, and the member meant named.
	_, err = New(context.Background(), withMetaJSON(t, `{"tools": {"f": {"mcp_exportible": true}}}`), "meta.wasm", "", Options{CacheDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `unknown key "mcp_exportible", did you mean "mcp_exportable"?`) {
		t.Fatalf("a misspelt member: %v", err)
	}
}

// A key of the section's top level given in tools.NAME (or the other way
// round) was refused as `unknown key "capabilities", did you mean
// "capabilities"?`, which names no fault; the error says at which level
// the key belongs.
func TestComponentMetaKeyLevel(t *testing.T) {
	for js, want := range map[string]string{
		`{"tools": {"f": {"capabilities": ["Clock"]}}}`:       `unknown key "capabilities": "capabilities" is a key of the section's top level, not of tools.NAME`,
		`{"id": "org.x.y", "capability_required": ["Clock"]}`: `unknown key "capability_required": "capability_required" is a key of tools.NAME, not of the section's top level`,
	} {
		_, err := New(context.Background(), withMetaJSON(t, js), "meta.wasm", "", Options{CacheDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%s: got %v, want %q", js, err, want)
		}
	}
}

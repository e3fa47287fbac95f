package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func seedCard(t testing.TB) map[string]any {
	t.Helper()
	data, err := os.ReadFile("known/chrome.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func mutate(t testing.TB, f func(m map[string]any)) []byte {
	m := seedCard(t)
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func adapter(m map[string]any) map[string]any { return m["adapter"].(map[string]any) }
func skill0(m map[string]any) map[string]any  { return m["skills"].([]any)[0].(map[string]any) }

func TestParseCardSeedExample(t *testing.T) {
	// The card of seed 001 §2.2, verbatim apart from the signature value.
	data, err := os.ReadFile("testdata/seed_card.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseCard(data, "seed_card.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Adapter.ID != "org.aios.browser.chrome" || len(c.Skills) != 3 || !c.Capabilities.Streaming || c.Signature == nil {
		t.Fatalf("parsed %+v", c)
	}
	tools := c.Tools()
	if tools[0].Name != "compat.browser.open_url" || tools[0].PermissionLevel != "medium" || tools[0].Version != "1.0.0" {
		t.Fatalf("tool 0 = %+v", tools[0])
	}
	if tools[1].Parameters["type"] != "object" {
		t.Fatalf("a skill without input_schema takes an object: %v", tools[1].Parameters)
	}
	if c.Requirements.Software.Detection.DBusService != nil {
		t.Fatal("dbus_service null should stay nil")
	}
}

func TestParseCardRejects(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"not-json", []byte(`{"adapter":`), "the card ends before its JSON does"},
		{"array", []byte(`[]`), "not a JSON object"},
		{"null", []byte(`null`), "not a JSON object"},
		{"missing-adapter", mutate(t, func(m map[string]any) { delete(m, "adapter") }), "adapter: required"},
		{"missing-capabilities", mutate(t, func(m map[string]any) { delete(m, "capabilities") }), "capabilities: required"},
		{"missing-skills", mutate(t, func(m map[string]any) { delete(m, "skills") }), "skills: required"},
		{"bad-id", mutate(t, func(m map[string]any) { adapter(m)["id"] = "Chrome" }), "adapter.id"},
		{"one-label-id", mutate(t, func(m map[string]any) { adapter(m)["id"] = "chrome" }), "reverse-domain"},
		{"no-name", mutate(t, func(m map[string]any) { adapter(m)["name"] = " " }), "adapter.name"},
		{"bad-version", mutate(t, func(m map[string]any) { adapter(m)["version"] = "1.0" }), "adapter.version"},
		{"old-protocol", mutate(t, func(m map[string]any) { adapter(m)["protocol_version"] = "0.2.0" }), "not supported"},
		{"new-protocol", mutate(t, func(m map[string]any) { adapter(m)["protocol_version"] = "1.0.0" }), "not supported"},
		{"bad-protocol", mutate(t, func(m map[string]any) { adapter(m)["protocol_version"] = "three" }), "protocol_version"},
		{"no-protocol", mutate(t, func(m map[string]any) { delete(adapter(m), "protocol_version") }), "protocol_version"},
		{"bad-homepage", mutate(t, func(m map[string]any) { adapter(m)["homepage"] = "ftp://x" }), "adapter.homepage"},
		{"unknown-adapter-field", mutate(t, func(m map[string]any) { adapter(m)["colour"] = "red" }), `unknown member "colour"`},
		{"unknown-top", mutate(t, func(m map[string]any) { m["colour"] = "red" }), "colour: unknown member"},
		{"wrong-type", mutate(t, func(m map[string]any) { adapter(m)["version"] = 1 }), "adapter"},
		{"cap-not-bool", mutate(t, func(m map[string]any) { m["capabilities"].(map[string]any)["streaming"] = "yes" }), "capabilities"},
		{"bad-level", mutate(t, func(m map[string]any) { skill0(m)["permission_level"] = "extreme" }), "permission_level"},
		{"no-level", mutate(t, func(m map[string]any) { delete(skill0(m), "permission_level") }), "permission_level"},
		{"bad-skill-id", mutate(t, func(m map[string]any) { skill0(m)["id"] = "has space" }), "skills[0].id"},
		{"dup-skill", mutate(t, func(m map[string]any) {
			s := m["skills"].([]any)
			m["skills"] = append(s, s[0])
		}), "duplicate skill id"},
		{"skill-no-name", mutate(t, func(m map[string]any) { delete(skill0(m), "name") }), ".name"},
		{"bad-schema", mutate(t, func(m map[string]any) { skill0(m)["input_schema"] = map[string]any{"type": "object", "minimum": "x"} }), "not a valid JSON Schema"},
		{"non-object-input", mutate(t, func(m map[string]any) { skill0(m)["input_schema"] = map[string]any{"type": "string"} }), "must be \"object\""},
		{"bad-output-schema", mutate(t, func(m map[string]any) { skill0(m)["output_schema"] = map[string]any{"type": 7} }), "output_schema"},
		{"bad-capability", mutate(t, func(m map[string]any) { skill0(m)["capability_required"] = []any{"ReadSpace"} }), "capability_required"},
		{"bad-latency", mutate(t, func(m map[string]any) { skill0(m)["latency_class"] = "warp" }), "latency_class"},
		{"bad-scheme", mutate(t, func(m map[string]any) {
			m["authentication"] = map[string]any{"required": true, "schemes": []any{"magic"}}
		}), "authentication.schemes[0]"},
		{"auth-no-scheme", mutate(t, func(m map[string]any) { m["authentication"] = map[string]any{"required": true, "schemes": []any{}} }), "no scheme"},
		{"bad-rpc", mutate(t, func(m map[string]any) { m["endpoints"].(map[string]any)["rpc"] = "ftp://x" }), "endpoints.rpc"},
		{"relative-unix", mutate(t, func(m map[string]any) { m["endpoints"].(map[string]any)["rpc"] = "unix://x.sock" }), "absolute socket path"},
		{"bad-http", mutate(t, func(m map[string]any) { m["endpoints"].(map[string]any)["http"] = "localhost:80" }), "endpoints.http"},
		{"bad-health", mutate(t, func(m map[string]any) { m["endpoints"].(map[string]any)["health"] = "health" }), "endpoints.health"},
		{"sw-no-name", mutate(t, func(m map[string]any) {
			m["requirements"].(map[string]any)["software"].(map[string]any)["name"] = ""
		}), "requirements.software.name"},
		{"bad-desktop-file", mutate(t, func(m map[string]any) {
			m["requirements"].(map[string]any)["software"].(map[string]any)["detection"].(map[string]any)["desktop_file"] = "../x"
		}), "desktop_file"},
		{"relative-exe", mutate(t, func(m map[string]any) {
			m["requirements"].(map[string]any)["software"].(map[string]any)["detection"].(map[string]any)["executable"] = "chrome"
		}), "absolute path"},
		{"bad-min-version", mutate(t, func(m map[string]any) {
			m["requirements"].(map[string]any)["software"].(map[string]any)["min_version"] = "latest"
		}), `requirements.software.min_version: "latest" is not a version`},
		{"bad-min-version-epoch", mutate(t, func(m map[string]any) {
			m["requirements"].(map[string]any)["software"].(map[string]any)["min_version"] = "x:1.0"
		}), "epoch"},
		{"bad-dbus-service", mutate(t, func(m map[string]any) {
			m["requirements"].(map[string]any)["software"].(map[string]any)["detection"].(map[string]any)["dbus_service"] = "chrome"
		}), "requirements.software.detection.dbus_service"},
		{"unique-dbus-service", mutate(t, func(m map[string]any) {
			m["requirements"].(map[string]any)["software"].(map[string]any)["detection"].(map[string]any)["dbus_service"] = ":1.42"
		}), "unique connection name"},
		{"bad-dep-constraint", mutate(t, func(m map[string]any) {
			m["requirements"].(map[string]any)["dependencies"] = []any{map[string]any{"name": "x", "version": "~>>1"}}
		}), "dependencies[0].version"},
		{"bad-grant", mutate(t, func(m map[string]any) { m["requirements"].(map[string]any)["capabilities"] = []any{"Network"} }), "requirements.capabilities"},
		{"bad-extension", mutate(t, func(m map[string]any) { m["extensions"] = []any{"priority"} }), "extensions[0]"},
		{"bad-sig-alg", mutate(t, func(m map[string]any) {
			m["signature"] = map[string]any{"algorithm": "HS256", "key_id": "k", "value": "v"}
		}), "signature.algorithm"},
		{"sig-no-value", mutate(t, func(m map[string]any) { m["signature"] = map[string]any{"algorithm": "ES256", "key_id": "k"} }), "signature"},
		{"artifact-escape", mutate(t, func(m map[string]any) { m["artifact"] = map[string]any{"path": "../../bin/sh"} }), "artifact.path"},
		{"artifact-bad-digest", mutate(t, func(m map[string]any) { m["artifact"] = map[string]any{"path": "tool.wasm", "sha256": "abc"} }), "sha256"},
		{"huge", append([]byte(`{"x-pad":"`), append([]byte(strings.Repeat("a", MaxCardBytes)), '"', '}')...), "larger than the limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCard(c.data, "card.json")
			if err == nil {
				t.Fatal("parsed; want an error")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "card.json") {
				t.Fatalf("error %q: want it to start with the file name and mention %q", err, c.want)
			}
		})
	}
}

func TestParseCardExtensionsAndExtras(t *testing.T) {
	data := mutate(t, func(m map[string]any) {
		m["x-vendor"] = map[string]any{"tier": 2}
		skill0(m)["capability_required"] = []any{"Network(*.example.com)"}
		skill0(m)["mcp_exportable"] = true
		m["requirements"].(map[string]any)["capabilities"] = []any{"Network(*)"}
	})
	c, err := ParseCard(data, "x.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Extra["x-vendor"].(map[string]any)["tier"] != int64(2) {
		t.Fatalf("extra = %#v", c.Extra)
	}
	d := c.Tools()[0]
	if !d.MCPExportable || d.CapabilityRequired[0] != "Network(*.example.com)" {
		t.Fatalf("tool = %+v", d)
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseCard(out, "again")
	if err != nil {
		t.Fatalf("marshal round trip: %v\n%s", err, out)
	}
	if back.Extra["x-vendor"] == nil || len(back.Skills) != len(c.Skills) {
		t.Fatal("round trip lost members")
	}
	// Schema numbers are canonical int64.
	c2, _ := ParseCard(mutate(t, func(m map[string]any) {
		skill0(m)["input_schema"] = map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 3}}}
	}), "n.json")
	if min := c2.Skills[0].InputSchema["properties"].(map[string]any)["n"].(map[string]any)["minimum"]; min != int64(3) {
		t.Fatalf("minimum = %#v", min)
	}
}

func TestCardFromRegister(t *testing.T) {
	reg := &abi.ToolRegister{Provider: abi.ProviderInfo{ID: "org.example.x", Version: "1.2.3", Capabilities: []string{"Inference"}},
		Tools: []abi.ToolDef{{Name: "b", Parameters: map[string]any{"type": "object"}}, {Name: "a", PermissionLevel: "high"}}}
	c := CardFromRegister(reg)
	raw, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseCard(raw, "synth")
	if err != nil {
		t.Fatalf("synthesized card does not validate: %v\n%s", err, raw)
	}
	if back.Skills[0].ID != "a" || back.Skills[0].PermissionLevel != "high" || back.Skills[1].PermissionLevel != "medium" {
		t.Fatalf("skills = %+v", back.Skills)
	}
}

func TestCheckProtocolVersion(t *testing.T) {
	for v, ok := range map[string]bool{"0.3.0": true, "0.3.9": true, "0.3": true, "0.2.9": false, "0.4.0": false, "1.0.0": false, "": false} {
		err := CheckProtocolVersion(v)
		if (err == nil) != ok {
			t.Errorf("CheckProtocolVersion(%q) = %v, want ok=%v", v, err, ok)
		}
	}
}

func TestDefaultLibrary(t *testing.T) {
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	if len(lib.Cards()) < 3 {
		t.Fatalf("%d known adapters", len(lib.Cards()))
	}
	e := &DesktopEntry{ID: "google-chrome.desktop", Type: "Application", Name: "Chrome", Exec: "google-chrome"}
	if c := lib.Match(e); c == nil || c.Adapter.ID != "org.aios.browser.chrome" {
		t.Fatalf("match = %v", c)
	}
	e.Hidden = true
	if lib.Match(e) != nil {
		t.Fatal("a Hidden entry must not match")
	}
	if lib.Match(&DesktopEntry{ID: "nothing.desktop", Type: "Application"}) != nil {
		t.Fatal("unknown entry matched")
	}
	var verr error = &CardError{Source: "s", Msg: "m"}
	var ce *CardError
	if !errors.As(verr, &ce) {
		t.Fatal("CardError")
	}
}

func FuzzParseCard(f *testing.F) {
	for _, n := range []string{"known/chrome.json", "known/firefox.json", "testdata/seed_card.json"} {
		data, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"adapter":{},"capabilities":{},"skills":[]}`))
	f.Add([]byte(`{"x-a":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCard(data, "fuzz.json")
		if err != nil {
			return
		}
		if abi.ValidateProviderID(c.Adapter.ID) != nil {
			t.Fatalf("accepted bad id %q", c.Adapter.ID)
		}
		for _, d := range c.Tools() {
			if abi.ValidateToolName(d.Name) != nil {
				t.Fatalf("accepted bad tool name %q", d.Name)
			}
		}
		out, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		c2, err := ParseCard(out, "again")
		if err != nil {
			t.Fatalf("re-marshaled card fails: %v", err)
		}
		// ... and is the same card: its tools and its text again.
		if a, b := toolsJSON(t, c), toolsJSON(t, c2); a != b {
			t.Fatalf("%q re-marshaled as %q changes its tools:\n%s\n%s", data, out, a, b)
		}
		if out2, err := c2.Marshal(); err != nil || !bytes.Equal(out2, out) {
			t.Fatalf("%q re-marshaled as %q, then as %q (%v)", data, out, out2, err)
		}
	})
}

func toolsJSON(t *testing.T, c *Card) string {
	b, err := json.Marshal(c.Tools())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadDescriptionBounded: a card, tool.aios.yaml or .desktop entry
// larger than MaxCardBytes is refused without being read whole (the file
// here is a 3 GiB sparse file; reading it into memory would take 3 GiB).
func TestReadDescriptionBounded(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.aios.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := readDescription(huge); err == nil || !strings.Contains(err.Error(), "larger than the limit of 1048576 bytes") {
		t.Fatalf("3 GiB description: %v", err)
	}
	small := filepath.Join(dir, "tool.aios.yaml")
	if err := os.WriteFile(small, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := readDescription(small); err != nil || string(data) != "name: x\n" {
		t.Fatalf("small description: %q, %v", data, err)
	}
}

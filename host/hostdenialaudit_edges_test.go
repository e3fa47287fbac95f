package host

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/js"
)

// TestRefusedHostServiceAudited: a tool that tries a host service its
// call may not use (a space its caller may not read or write, inference,
// a read by id with no space both may read) and catches the refusal
// returned "ok", and its audit record said nothing of the attempt: a
// tool probing what it was not granted left no trace. The call's record
// keeps outcome ok and says, in its error, what was refused; a call that
// fails with another error keeps that error and adds the refusal.
func TestRefusedHostServiceAudited(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["weak"] = config.Agent{Grants: []string{"CallTool(*)", "ReadSpace(pub)"}}
	})
	rt := js.New(js.Options{Isolation: js.IsolationInProcess})
	t.Cleanup(func() { _ = rt.Close() })
	for _, l := range rt.Loaders() {
		if l.Runtime() == abi.RuntimeJS {
			if err := te.h.AddLoader(l); err != nil {
				t.Fatal(err)
			}
		}
	}
	src := filepath.Join(t.TempDir(), "sneak.js")
	code := `
aios.provider({ id: 'org.probe.sneak', capabilities: ['ReadSpace(*)', 'WriteSpace(*)', 'Inference'] });
const id = 'sha256:' + '0'.repeat(64);
aios.registerTool({ name: 'sneak-read', parameters: { type: 'object' } },
  async (p, ctx) => { try { await ctx.spaces.read(id, 'secret'); } catch (e) { return { code: e.code }; } return { code: '' }; });
aios.registerTool({ name: 'sneak-write', parameters: { type: 'object' } },
  async (p, ctx) => { try { await ctx.spaces.write('secret', 'x'); } catch (e) { return { code: e.code }; } return { code: '' }; });
aios.registerTool({ name: 'sneak-infer', parameters: { type: 'object' } },
  async (p, ctx) => { try { await ctx.ai.complete('hi'); } catch (e) { return { code: e.code }; } return { code: '' }; });
aios.registerTool({ name: 'sneak-fail', parameters: { type: 'object' } },
  async (p, ctx) => { try { await ctx.spaces.write('secret', 'x'); } catch (e) { } throw new Error('gave up'); });
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := te.h.LoadFile(context.Background(), src, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"sneak-read":  "ReadSpace(secret)",
		"sneak-write": "WriteSpace(secret)",
		"sneak-infer": "Inference",
		"sneak-fail":  "WriteSpace(secret)",
	}
	for tool := range want {
		v, err := te.call("weak", tool, map[string]any{})
		if tool == "sneak-fail" {
			if err == nil || !strings.Contains(err.Error(), "gave up") {
				t.Fatalf("%s: %v, want its own error", tool, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if c, _ := v.(map[string]any)["code"].(string); c != string(abi.CapabilityDenied) {
			t.Fatalf("%s: the tool saw %v, want CapabilityDenied", tool, v)
		}
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(te.audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r audit.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		cap, ok := want[r.Tool]
		if !ok {
			continue
		}
		seen[r.Tool] = true
		if !strings.Contains(r.Error, string(abi.CapabilityDenied)) || !strings.Contains(r.Error, cap) {
			t.Errorf("record of %s (outcome %s): error %q does not say %s was refused", r.Tool, r.Outcome, r.Error, cap)
		}
		if r.Tool == "sneak-fail" && !strings.Contains(r.Error, "gave up") {
			t.Errorf("record of sneak-fail lost the call's own error: %q", r.Error)
		}
		if r.Tool != "sneak-fail" && r.Outcome != "ok" {
			t.Errorf("record of %s: outcome %s, want ok (the tool answered)", r.Tool, r.Outcome)
		}
	}
	for tool := range want {
		if !seen[tool] {
			t.Errorf("no record of %s", tool)
		}
	}
}

package discovery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/trust"
)

const greeterTS = `import { Agent, tool } from 'aios-sdk';

@Agent({ id: 'org.example.greeter-code', name: 'Greeter' })
class Greeter {
  @tool({ name: 'greet', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } })
  greet(p: { name: string }) {
    return { greeting: 'GREETING ' + p.name };
  }
}
`

// The "done when" path with a real runtime: a .ts plus a signed card dropped
// into the plugin folder of a running host becomes callable, a subscriber
// sees tools_changed, and a tampered copy is refused.
func TestSignedTypeScriptDrop(t *testing.T) {
	key, err := trust.GenerateKey("EdDSA", "vendor")
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := trust.MarshalJWKS(key.PublicJWK())
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	_ = os.MkdirAll(plugins, 0o755)
	writeFile(t, filepath.Join(dir, "vendor.jwks.json"), string(jwks))
	cfg, err := config.Parse([]byte("plugins: ["+plugins+"]\ndata: "+filepath.Join(dir, "data")+"\naudit: {disabled: true}\n"+
		"discovery:\n  dirs: []\n  desktop_dirs: []\n  keys: [{trust: Verified, jwks: vendor.jwks.json}]\n"), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rt := js.New(js.Options{})
	defer rt.Close()
	h, err := host.New(host.Options{Config: cfg, Loaders: rt.Loaders()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	d, err := New(Options{Host: h, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	events, cancel := h.Registry().Subscribe(8)
	defer cancel()

	// Prepare the signed folder elsewhere, then move it in.
	stage := filepath.Join(dir, "stage")
	writeFile(t, filepath.Join(stage, "tool.ts"), greeterTS)
	card := `{"adapter": {"id": "org.example.greeter", "name": "Greeter", "version": "1.2.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "greet", "name": "Greet", "description": "Greets someone", "permission_level": "public"}],
  "artifact": {"path": "tool.ts"}}`
	pinned, _, err := trust.PinArtifact([]byte(card), stage, "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	signed, err := trust.SignCard(pinned, key)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(stage, "adapter.json"), string(signed))
	start := time.Now()
	if err := os.Rename(stage, filepath.Join(plugins, "greeter")); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if len(ev.Added) != 1 || ev.Added[0].Name != "greet" || ev.Added[0].ProviderID != "org.example.greeter" {
			t.Fatalf("event %+v", ev)
		}
		t.Logf("signed .ts folder dropped → tools_changed in %v", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatalf("no tools_changed; errors: %v", d.Errors())
	}
	v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "greet", Params: map[string]any{"name": "Ada"}})
	if err != nil || v.(map[string]any)["greeting"] != "GREETING Ada" {
		t.Fatalf("greet = %v, %v", v, err)
	}
	rec := h.Registry().Provider("org.example.greeter")
	if rec.Trust != abi.Verified || rec.Info.Runtime != abi.RuntimeTS {
		t.Fatalf("record %+v", rec)
	}
	// A tampered copy (code changed under the signed card) is refused.
	copyDir := filepath.Join(dir, "copy")
	writeFile(t, filepath.Join(copyDir, "tool.ts"), strings.Replace(greeterTS, "GREETING", "PWNED", 1))
	writeFile(t, filepath.Join(copyDir, "adapter.json"), strings.Replace(string(signed), "org.example.greeter", "org.example.greeter2", 1))
	if err := os.Rename(copyDir, filepath.Join(plugins, "copy")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(plugins, "copy")
	testutil.Eventually(t, "tampered copy refused", func() bool { return strings.Contains(d.Errors()[dst], "refused") })
	if h.Registry().Provider("org.example.greeter2") != nil {
		t.Fatal("tampered copy registered")
	}
}

package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/mcpserver"
	"github.com/aios-host/aios-host/runtimes/js"
	mcpbridge "github.com/aios-host/aios-host/runtimes/mcp"
)

// mcpSamples returns samples/mcp, failing when its npm packages (the MCP
// Inspector and server-everything) are not installed.
func mcpSamples(t *testing.T) string {
	t.Helper()
	root := config.RepoRoot()
	if root == "" {
		t.Fatal("repository root not found")
	}
	dir := filepath.Join(root, "samples", "mcp")
	for _, p := range []string{"node_modules/.bin/mcp-inspector", "node_modules/@modelcontextprotocol/server-everything/dist/index.js"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Fatalf("%s missing: run `make samples` (or `npm ci` in samples/mcp)", p)
		}
	}
	return dir
}

// buildBinary builds aios-host into a temporary folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "aios-host")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// everythingConfig imports server-everything and exports its echo tool.
func everythingConfig(t *testing.T, dir, extra string) string {
	t.Helper()
	cfg := `mcp:
  export: [mcp-everything-echo]
  servers:
    everything:
      command: node
      args: [` + filepath.Join(dir, "node_modules/@modelcontextprotocol/server-everything/dist/index.js") + `, stdio]
      resources: false
` + extra
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func inspector(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "node_modules/.bin/mcp-inspector"), append([]string{"--cli"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcp-inspector %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestMCPInspectorStdio: the MCP Inspector CLI (a client no one here wrote)
// lists and calls aios-host's tools over stdio; the called tool is itself
// server-everything's echo imported through the bridge.
func TestMCPInspectorStdio(t *testing.T) {
	dir := mcpSamples(t)
	bin := buildBinary(t)
	// analyze-complexity reads a Space: the stdio agent lists and may call
	// it only with ReadSpace (tools/list shows what the agent may call).
	cfg := everythingConfig(t, dir, "agents:\n  mcp: {grants: ['CallTool(*)', 'ReadSpace(*)']}\n")
	data := t.TempDir()
	// The Inspector takes --config for itself: wrap the command line.
	wrapper := filepath.Join(t.TempDir(), "aios-host-mcp.sh")
	script := "#!/bin/sh\nexec '" + bin + "' mcp --config '" + cfg + "' --data '" + data + "'\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	base := []string{wrapper}
	out := inspector(t, dir, nil, append(base, "--method", "tools/list")...)
	if !strings.Contains(out, `"name": "analyze-complexity"`) || !strings.Contains(out, `"name": "mcp-everything-echo"`) ||
		!strings.Contains(out, `"outputSchema"`) || !strings.Contains(out, `"idempotentHint"`) {
		t.Fatalf("tools/list:\n%s", out)
	}
	out = inspector(t, dir, nil, append(base, "--method", "tools/call", "--tool-name", "mcp-everything-echo", "--tool-arg", "message=hello-from-inspector")...)
	if !strings.Contains(out, "Echo: hello-from-inspector") || strings.Contains(out, `"isError": true`) {
		t.Fatalf("tools/call:\n%s", out)
	}
	// Args that fail the schema come back as a tool error, not a crash.
	out = inspector(t, dir, nil, append(base, "--method", "tools/call", "--tool-name", "mcp-everything-echo", "--tool-arg", "other=x")...)
	if !strings.Contains(out, `"isError": true`) || !strings.Contains(out, "InvalidParams") {
		t.Fatalf("bad args:\n%s", out)
	}
	// The audit log marks the bridged (untrusted) call.
	b, err := os.ReadFile(filepath.Join(data, "audit.jsonl"))
	if err != nil || !regexp.MustCompile(`"tool":"mcp-everything-echo","untrusted":true`).Match(b) {
		t.Fatalf("audit log (%v):\n%s", err, b)
	}
}

// TestMCPInspectorHTTP: `aios-host run --http` serves /mcp; the Inspector
// CLI lists and calls tools with a bearer JWT from a test issuer (added by
// a node preload, as the CLI has no header option), and is refused without.
func TestMCPInspectorHTTP(t *testing.T) {
	dir := mcpSamples(t)
	bin := buildBinary(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k", Algorithm: "ES256", Use: "sig"}}})
	iss := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(jwks) }))
	defer iss.Close()
	cfg := everythingConfig(t, dir, `  http:
    issuer: `+iss.URL+`
    jwks_url: `+iss.URL+`/jwks
    scopes: [{scope: aios.tools, agent: mcp}]
`)
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--config", cfg, "--data", data, "--plugins", t.TempDir(),
		"--socket", filepath.Join(t.TempDir(), "s.sock"), "--http", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	endpoint := ""
	re := regexp.MustCompile(`MCP .* on (http://\S+/mcp)`)
	sc := bufio.NewScanner(stderr)
	deadline := time.AfterFunc(60*time.Second, cancel)
	for endpoint == "" && sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			endpoint = m[1]
		}
	}
	deadline.Stop()
	go func() {
		for sc.Scan() {
		}
	}()
	if endpoint == "" {
		t.Fatal("run did not announce /mcp")
	}
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k"))
	tok, _ := jwt.Signed(sig).Claims(jwt.Claims{Issuer: iss.URL, Subject: "inspector", Audience: jwt.Audience{endpoint},
		Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Claims(map[string]any{"scope": "aios.tools"}).Serialize()

	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Fatalf("without token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	env := []string{"AIOS_MCP_BEARER=" + tok, "NODE_OPTIONS=--import=" + filepath.Join(dir, "bearer-preload.mjs")}
	out := inspector(t, dir, env, endpoint, "--transport", "http", "--method", "tools/list")
	if !strings.Contains(out, `"name": "mcp-everything-echo"`) {
		t.Fatalf("tools/list over HTTP:\n%s", out)
	}
	out = inspector(t, dir, env, endpoint, "--transport", "http", "--method", "tools/call", "--tool-name", "mcp-everything-echo", "--tool-arg", "message=over-http")
	if !strings.Contains(out, "Echo: over-http") {
		t.Fatalf("tools/call over HTTP:\n%s", out)
	}
}

// TestCrossRuntimeJSToMCP: a JavaScript tool (samples/mcp/plugins) calls
// server-everything's echo through the host: js -> host pipeline -> MCP
// bridge -> npm MCP server.
func TestCrossRuntimeJSToMCP(t *testing.T) {
	dir := mcpSamples(t)
	cfg, err := config.Load(everythingConfig(t, dir, ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Data = t.TempDir()
	if err := mcpserver.AddDefaultAgent(cfg); err != nil {
		t.Fatal(err)
	}
	rt := js.New(js.Options{})
	defer rt.Close()
	h, err := host.New(host.Options{Config: cfg, Loaders: rt.Loaders()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	if _, err := h.LoadFile(ctx, filepath.Join(dir, "plugins", "mcp-echo-relay.js"), host.ProviderMeta{Source: "test", Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	servers, err := mcpbridge.LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := mcpbridge.New(mcpbridge.Options{Servers: servers, Publish: func(ctx context.Context, p abi.Provider, src string) error {
		return h.ReplaceProvider(ctx, p, host.ProviderMeta{Source: src, Trust: abi.Untrusted})
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := h.Call(ctx, &abi.ToolCall{Caller: config.DefaultAgentName, Tool: "relay-echo", Params: map[string]any{"message": "js->mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := v.(map[string]any)
	if m["echoed"] != "Echo: js->mcp" || m["runtime_chain"] != "js -> mcp" {
		t.Fatalf("relay-echo = %#v", v)
	}
	// server-everything's resource template demo://resource/dynamic/text/{resourceId}
	// is a read tool taking resourceId.
	v, err = h.Call(ctx, &abi.ToolCall{Caller: config.DefaultAgentName, Tool: "mcp-everything-read-dynamic-text-resource", Params: map[string]any{"resourceId": int64(7)}})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := v.(map[string]any)["contents"].([]any)
	if len(c) != 1 || c[0].(map[string]any)["uri"] != "demo://resource/dynamic/text/7" || !strings.Contains(fmt.Sprint(c[0].(map[string]any)["text"]), "Resource 7") {
		t.Fatalf("template read = %#v", v)
	}
	// Its prompt args-prompt (city required, state optional) is a tool.
	v, err = h.Call(ctx, &abi.ToolCall{Caller: config.DefaultAgentName, Tool: "mcp-everything-prompt-args-prompt", Params: map[string]any{"city": "Lyon"}})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := v.(map[string]any)["messages"].([]any)
	if len(msgs) != 1 || fmt.Sprint(msgs[0].(map[string]any)["content"].(map[string]any)["text"]) != "What's weather in Lyon?" {
		t.Fatalf("args-prompt = %#v", v)
	}
	if _, err := h.Call(ctx, &abi.ToolCall{Caller: config.DefaultAgentName, Tool: "mcp-everything-prompt-args-prompt", Params: map[string]any{"state": "Rhône"}}); abi.CodeOf(err) != abi.InvalidParams {
		t.Fatalf("args-prompt without its required city: %v", err)
	}
}

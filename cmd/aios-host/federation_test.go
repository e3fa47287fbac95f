package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/config"
)

// fedToken is the bearer token each host presents to the other; both map
// it to their agent "peer".
const fedToken = "federation-test-token"

// fedHost is one configured aios-host: its folders, addresses and key.
type fedHost struct {
	name    string
	dir     string // config.yaml, key/, plugins/, data/
	data    string
	socket  string
	addr    string // 127.0.0.1:port
	jwks    string // key/jwks.json (made by `aios-host keygen`)
	plugins string
	stderr  *syncBuffer
}

func (h *fedHost) url() string    { return "http://" + h.addr }
func (h *fedHost) config() string { return filepath.Join(h.dir, "config.yaml") }

// freeAddr returns a 127.0.0.1 address that was free a moment ago and
// that no earlier freeAddr of this test process returned: the kernel may
// hand a port just closed out again, and two hosts of one test were given
// the same one (A then imported itself, in a clean-clone run).
func freeAddr(t *testing.T) string {
	t.Helper()
	handedMu.Lock()
	defer handedMu.Unlock()
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		if !handed[addr] {
			handed[addr] = true
			return addr
		}
	}
	t.Fatal("no free 127.0.0.1 port not handed out before")
	return ""
}

var (
	handedMu sync.Mutex
	handed   = map[string]bool{}
)

// binRun runs the aios-host binary to completion and returns its exit
// code, stdout and stderr.
func binRun(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("aios-host %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return code, out.String(), errb.String()
}

// newFedHost makes the folders of one host and its signing key
// (`aios-host keygen`).
func newFedHost(t *testing.T, bin, name string) *fedHost {
	t.Helper()
	dir := t.TempDir()
	h := &fedHost{name: name, dir: dir, data: filepath.Join(dir, "data"), socket: filepath.Join(dir, "h.sock"),
		addr: freeAddr(t), jwks: filepath.Join(dir, "key", "jwks.json"), plugins: filepath.Join(dir, "plugins"), stderr: &syncBuffer{}}
	if err := os.MkdirAll(h.plugins, 0o700); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := binRun(t, bin, "keygen", "--alg", "ES256", "--out", filepath.Join(dir, "key")); code != 0 {
		t.Fatalf("keygen for host %s: %d %s %s", name, code, out, errs)
	}
	return h
}

// writeConfig writes h's config.yaml: its card signed with its key, the
// bearer token mapped to "peer" (with peerGrants), and remotes whose cards
// must be signed by a key of the listed JWKS files.
func (h *fedHost) writeConfig(t *testing.T, peerGrants, export []string, remotes []string, trusted []string, extra string) {
	t.Helper()
	q := func(list []string) string {
		b, _ := json.Marshal(list) // a JSON array is a YAML flow sequence
		return string(b)
	}
	var keys, rems strings.Builder
	for _, j := range trusted {
		fmt.Fprintf(&keys, "    - {trust: Community, jwks: %q}\n", j)
	}
	for _, r := range remotes {
		fmt.Fprintf(&rems, "    - {url: %q, token: %q}\n", r, fedToken)
	}
	doc := "plugins: [" + fmt.Sprintf("%q", h.plugins) + "]\n" +
		"data: " + fmt.Sprintf("%q", h.data) + "\n" +
		"agents:\n" +
		"  cli: {grants: ['ReadSpace(*)', 'WriteSpace(*)', 'CallTool(*)']}\n" +
		"  peer: {grants: " + q(peerGrants) + "}\n" +
		"server:\n" +
		"  id: org.aios.host.fed" + h.name + "\n" +
		"  signing_key: key/private.pem\n" +
		"  tokens: [{agent: peer, token: " + fmt.Sprintf("%q", fedToken) + "}]\n" +
		"  export: " + q(export) + "\n" +
		"discovery:\n" +
		"  dirs: []\n" +
		"  desktop_dirs: []\n" +
		"  remote_refresh: 300ms\n" +
		"  keys:\n" + keys.String() +
		"  remotes:\n" + rems.String() + extra
	if len(remotes) == 0 {
		doc = strings.Replace(doc, "  remotes:\n", "  remotes: []\n", 1)
	}
	if len(trusted) == 0 {
		doc = strings.Replace(doc, "  keys:\n", "  keys: []\n", 1)
	}
	if err := os.WriteFile(h.config(), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// start runs `aios-host run` for h as a child process, stopped (SIGTERM,
// then SIGKILL) in t.Cleanup.
func (h *fedHost) start(t *testing.T, bin string) {
	t.Helper()
	cmd := exec.Command(bin, "run", "--config", h.config(), "--data", h.data, "--socket", h.socket, "--http", h.addr)
	cmd.Stdout, cmd.Stderr = h.stderr, h.stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("host %s log:\n%s", h.name, h.stderr.String())
		}
	})
	// Wait for /health, failing early when the process exits.
	deadline := time.Now().Add(45 * time.Second)
	for {
		resp, err := http.Get(h.url() + "/health")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-done:
			t.Fatalf("host %s exited before serving:\n%s", h.name, h.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %s: no /health after 45s:\n%s", h.name, h.stderr.String())
		}
	}
}

// listTools is `aios-host list --json --socket` against h.
func (h *fedHost) listTools(t *testing.T, bin string) map[string]map[string]any {
	t.Helper()
	code, out, errs := binRun(t, bin, "list", "--json", "--config", h.config(), "--socket", h.socket)
	if code != 0 {
		t.Fatalf("list on host %s: %d %s", h.name, code, errs)
	}
	var tools []map[string]any
	if err := json.Unmarshal([]byte(out), &tools); err != nil {
		t.Fatalf("list on host %s is not JSON: %v\n%s", h.name, err, out)
	}
	byName := map[string]map[string]any{}
	for _, tl := range tools {
		byName[tl["name"].(string)] = tl
	}
	return byName
}

// waitFor polls cond every 100ms for up to 40s.
func waitFor(t *testing.T, what string, cond func() bool, log func() string) {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\n%s", what, log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestFederationTwoProcesses (issue 5 item 6): two `aios-host run`
// processes on 127.0.0.1, each importing the other's signed card and
// calling a tool of the other with `aios-host call --socket`; a third host
// pointed at a copy of B's card with one byte changed (signature kept)
// refuses it and says why.
//
// Host A serves the built-in analyze-complexity (native); host B has the
// built-in disabled and serves the JavaScript conformance provider from its
// plugin folder, exporting its echo tool.
func TestFederationTwoProcesses(t *testing.T) {
	root := config.RepoRoot()
	if root == "" {
		t.Fatal("repository root not found")
	}
	jsSample, err := os.ReadFile(filepath.Join(root, "samples", "js", "conformance.js"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	a, b, c := newFedHost(t, bin, "a"), newFedHost(t, bin, "b"), newFedHost(t, bin, "c")

	// A: analyze-complexity reads Space "source"; B's token may call only it.
	a.writeConfig(t, []string{"CallTool(analyze-complexity)", "ReadSpace(source)"}, nil,
		[]string{b.url()}, []string{b.jwks}, "")
	// B: no built-in; the JS conformance provider; A's token may call only echo.
	if err := os.WriteFile(filepath.Join(b.plugins, "conformance.js"), jsSample, 0o600); err != nil {
		t.Fatal(err)
	}
	b.writeConfig(t, []string{"CallTool(echo)"}, []string{"echo"},
		[]string{a.url()}, []string{a.jwks}, "providers:\n  org.aios.samples.complexity: {disabled: true}\n")

	// The object analyze-complexity reads lives in A's Space.
	src := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(src, []byte(goSource), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := binRun(t, bin, "space", "put", "source", src, "--config", a.config(), "--data", a.data)
	if code != 0 {
		t.Fatalf("space put on host A: %d %s", code, errs)
	}
	objectID := strings.TrimSpace(out)

	a.start(t, bin)
	b.start(t, bin)
	// Whichever started first missed the other's card; remote_refresh
	// (300ms) fetches it again. Wait until each lists the other's tool.
	waitFor(t, "A to import echo from B", func() bool { return a.listTools(t, bin)["echo"] != nil }, a.stderr.String)
	waitFor(t, "B to import analyze-complexity from A", func() bool {
		tl := b.listTools(t, bin)["analyze-complexity"]
		return tl != nil && tl["runtime"] == "remote"
	}, b.stderr.String)
	tl := a.listTools(t, bin)
	if e := tl["echo"]; e["runtime"] != "remote" || e["provider"] != "org.aios.host.fedb" || e["trust"] != "Community" {
		t.Fatalf("echo on A: %v", e)
	}
	if tl["add"] != nil {
		t.Fatalf("B's add is not exported, yet A lists it: %v", tl["add"])
	}
	if e := tl["analyze-complexity"]; e["runtime"] != "native" {
		t.Fatalf("A's own analyze-complexity: %v", e)
	}

	// A → B: the JavaScript echo runs in B.
	code, out, errs = binRun(t, bin, "call", "echo", `{"value":{"from":"A","n":[1,2.5,"ü"]}}`, "--json",
		"--config", a.config(), "--socket", a.socket)
	if code != 0 || out != `{"value":{"from":"A","n":[1,2.5,"ü"]}}`+"\n" {
		t.Fatalf("A calls B's echo: %d %q %s", code, out, errs)
	}
	// B → A: the native analyze-complexity runs in A on A's Space.
	code, out, errs = binRun(t, bin, "call", "analyze-complexity", `{"object_id":"`+objectID+`","language":"go"}`, "--json",
		"--config", b.config(), "--socket", b.socket)
	var res map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res["complexity"] != float64(4) {
		t.Fatalf("B calls A's analyze-complexity: %d %q %s", code, out, errs)
	}
	// A ran it as the agent B's token maps to (audited in A).
	waitFor(t, "A's audit log to record the call by peer", func() bool {
		log, _ := os.ReadFile(filepath.Join(a.data, "audit.jsonl"))
		return regexp.MustCompile(`"caller":"peer".*"tool":"analyze-complexity"`).Match(log)
	}, func() string { log, _ := os.ReadFile(filepath.Join(a.data, "audit.jsonl")); return string(log) })
	// Bad params are refused with InvalidParams, and an error raised in the
	// serving host keeps its code across the hop (A's Space has no such object).
	code, out, _ = binRun(t, bin, "call", "echo", `{}`, "--json", "--config", a.config(), "--socket", a.socket)
	if code != exitFail || !strings.Contains(out, `"code":"InvalidParams"`) {
		t.Fatalf("A calls B's echo without value: %d %q", code, out)
	}
	code, out, _ = binRun(t, bin, "call", "analyze-complexity", `{"object_id":"sha256:`+strings.Repeat("0", 64)+`"}`, "--json",
		"--config", b.config(), "--socket", b.socket)
	if code != exitFail || !strings.Contains(out, `"code":"NotFound"`) {
		t.Fatalf("B calls A's analyze-complexity on a missing object: %d %q", code, out)
	}

	// C: trusts B's key but fetches B's card through a proxy that changes
	// one byte of it and keeps the signature.
	var (
		mu       sync.Mutex
		tampered []byte // the last card served, for `aios-host verify` below
	)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(b.url() + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		i := strings.Index(string(body), `"echo"`)
		if r.URL.Path != "/.well-known/aios-adapter.json" || i < 0 {
			http.Error(w, "unexpected request or card", http.StatusInternalServerError)
			return
		}
		body[i+4] = 'x' // "echo" → "echx"
		mu.Lock()
		tampered = append([]byte(nil), body...)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(proxy.Close)
	c.writeConfig(t, []string{"CallTool(*)"}, nil, []string{proxy.URL}, []string{b.jwks}, "")
	c.start(t, bin)
	waitFor(t, "C to refuse the tampered card", func() bool {
		log := c.stderr.String()
		return strings.Contains(log, "remote:"+proxy.URL) && strings.Contains(log, "refused") && strings.Contains(log, "does not verify")
	}, c.stderr.String)
	mu.Lock()
	served := append([]byte(nil), tampered...)
	mu.Unlock()
	if !strings.Contains(string(served), `"signature"`) {
		t.Fatalf("the tampered card was not signed:\n%s", served)
	}
	ct := c.listTools(t, bin)
	if ct["echx"] != nil || ct["echo"] != nil {
		t.Fatalf("host C registered a tool of the tampered card: %v", ct)
	}
	// `aios-host verify` agrees, and the same card with the byte restored
	// verifies: the refusal was the byte, not the proxy.
	card := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(card, served, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := binRun(t, bin, "verify", card, "--jwks", b.jwks); code != exitFail || !strings.Contains(out, "does not verify") {
		t.Fatalf("verify of the tampered card: %d %s %s", code, out, errs)
	}
	served[strings.Index(string(served), `"echx"`)+4] = 'o'
	if err := os.WriteFile(card, served, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := binRun(t, bin, "verify", card, "--jwks", b.jwks); code != 0 || !strings.HasPrefix(out, "valid: ") {
		t.Fatalf("verify of B's card with the byte restored: %d %s %s", code, out, errs)
	}
}

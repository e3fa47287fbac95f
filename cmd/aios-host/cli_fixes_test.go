package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// runWith runs aios-host with exactly args, stdin and stdout, and fails the
// test when it does not return within 20 s.
func runWith(t *testing.T, stdin io.Reader, stdout io.Writer, args ...string) (int, string) {
	t.Helper()
	var errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), args, stdin, stdout, &errb) }()
	select {
	case code := <-done:
		return code, errb.String()
	case <-time.After(20 * time.Second):
		t.Fatalf("aios-host %q did not return within 20 s; stderr: %s", args, errb.String())
		return 0, ""
	}
}

// writeConfig writes a config file with body and returns its path.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// countingReader yields n bytes of b and counts what was read.
type countingReader struct {
	b    byte
	n    int64
	read int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.n >= 0 && r.read >= r.n {
		return 0, io.EOF
	}
	k := int64(len(p))
	if r.n >= 0 {
		k = min(k, r.n-r.read)
	}
	for i := range k {
		p[i] = r.b
	}
	r.read += k
	return int(k), nil
}

func TestInputLimits(t *testing.T) {
	e := newEnv(t)
	cfg := writeConfig(t, "limits:\n  max_object_bytes: 1000\n  max_params_bytes: 100\n")
	big := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 2000), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "space", "put", "source", big, "--config", cfg)
	if code != exitFail || !strings.Contains(errs, big+" is more than 1000 bytes (limits.max_object_bytes)") {
		t.Fatalf("space put of a 2000-byte file: %d %q", code, errs)
	}
	// Standard input: never read past the limit, and the size is not a
	// made-up number.
	for _, n := range []int64{2000, 1 << 30} {
		in := &countingReader{b: 'x', n: n}
		var out bytes.Buffer
		code, errs = runWith(t, in, &out, "space", "put", "source", "-", "--config", cfg, "--data", e.data)
		if code != exitFail || !strings.Contains(errs, "standard input is more than 1000 bytes (limits.max_object_bytes)") || in.read > 1001 {
			t.Fatalf("space put of %d bytes on stdin: %d %q, read %d bytes", n, code, errs, in.read)
		}
	}
	if code, out, errs := e.run(strings.Repeat("y", 1000), "space", "put", "source", "-", "--config", cfg); code != 0 || !strings.HasPrefix(out, "sha256:") {
		t.Fatalf("space put of exactly the limit: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		code, _, errs = e.run("", "space", "put", "source", "/dev/zero", "--config", cfg)
		if code != exitFail || !strings.Contains(errs, "/dev/zero is more than 1000 bytes") {
			t.Fatalf("space put /dev/zero: %d %q", code, errs)
		}
	}
	// call TOOL - reads at most limits.max_params_bytes + 1.
	in := &countingReader{b: ' ', n: 10000}
	var out bytes.Buffer
	code, errs = runWith(t, in, &out, "call", "analyze-complexity", "-", "--config", cfg, "--data", e.data, "--plugins", e.plugins)
	if code != exitFail || !strings.Contains(errs, "params from standard input is more than 100 bytes (limits.max_params_bytes)") || in.read > 101 {
		t.Fatalf("call with 10000 bytes of params on stdin: %d %q, read %d bytes", code, errs, in.read)
	}
}

func TestSignTakesKeygenKid(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	keyDir := filepath.Join(dir, "key")
	if code, out, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keyDir, "--kid", "mykey"); code != 0 || !strings.Contains(out, "mykey") {
		t.Fatalf("keygen --kid: %d %s %s", code, out, errs)
	}
	card := filepath.Join(dir, "adapter.json")
	if err := os.WriteFile(card, []byte(`{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "demo", "name": "Demo", "permission_level": "low"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, signed, errs := e.bare("sign", card, "--key", filepath.Join(keyDir, "private.pem"))
	if code != 0 || !strings.Contains(signed, `"key_id": "mykey"`) {
		t.Fatalf("sign without --kid: %d %s %s", code, signed, errs)
	}
	signedPath := filepath.Join(dir, "signed.json")
	if err := os.WriteFile(signedPath, []byte(signed), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := e.bare("verify", signedPath, "--jwks", filepath.Join(keyDir, "jwks.json")); code != 0 || !strings.Contains(out, `key "mykey"`) {
		t.Fatalf("verify: %d %s", code, out)
	}

	// audit anchor takes the same kid, so audit verify --signed-anchor works.
	id := e.putSource()
	if code, _, errs := e.run("", "call", "analyze-complexity", `{"object_id":"`+id+`"}`); code != 0 {
		t.Fatal(errs)
	}
	anchor := filepath.Join(dir, "anchor.jws")
	if code, out, errs := e.run("", "audit", "anchor", "--key", filepath.Join(keyDir, "private.pem"), "--out", anchor); code != 0 || !strings.Contains(out, "key mykey") {
		t.Fatalf("audit anchor: %d %s %s", code, out, errs)
	}
	if code, out, errs := e.run("", "audit", "verify", "--signed-anchor", anchor, "--jwks", filepath.Join(keyDir, "jwks.json")); code != 0 {
		t.Fatalf("audit verify --signed-anchor: %d %s %s", code, out, errs)
	}

	// A key with a jwks.json beside it that does not hold it keeps its
	// thumbprint, and a broken jwks.json is an error.
	other := filepath.Join(dir, "other")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", other); code != 0 {
		t.Fatal(errs)
	}
	data, _ := os.ReadFile(filepath.Join(keyDir, "jwks.json"))
	if err := os.WriteFile(filepath.Join(other, "jwks.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, signed, errs := e.bare("sign", card, "--key", filepath.Join(other, "private.pem")); code != 0 || strings.Contains(signed, "mykey") {
		t.Fatalf("sign with a key not in the jwks.json beside it: %d %s %s", code, signed, errs)
	}
	if err := os.WriteFile(filepath.Join(other, "jwks.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.bare("sign", card, "--key", filepath.Join(other, "private.pem")); code != exitFail || !strings.Contains(errs, "jwks.json") || !strings.Contains(errs, "--kid") {
		t.Fatalf("sign with a broken jwks.json beside the key: %d %s", code, errs)
	}
}

func TestKeygenForceReplacesFiles(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	// An old private key readable by everyone.
	loose := filepath.Join(dir, "loose")
	if err := os.MkdirAll(loose, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(loose, "private.pem"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(loose, "private.pem"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.bare("keygen", "--out", loose, "--force"); code != 0 {
		t.Fatalf("keygen --force: %d %s", code, errs)
	}
	st, err := os.Lstat(filepath.Join(loose, "private.pem"))
	if err != nil || st.Mode().Perm() != 0o600 || !st.Mode().IsRegular() {
		t.Fatalf("private.pem after keygen --force over a 0644 file: %v %v", st.Mode(), err)
	}
	// Without --force a symbolic link, even a dangling one, is an existing
	// file, and nothing is written through it.
	linked := filepath.Join(dir, "linked")
	nowhere := filepath.Join(dir, "nowhere")
	target := filepath.Join(dir, "target.txt")
	if err := os.MkdirAll(linked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(nowhere, filepath.Join(linked, "private.pem")); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.bare("keygen", "--out", linked); code != exitFail || !strings.Contains(errs, "exists") {
		t.Fatalf("keygen over a dangling symbolic link without --force: %d %s", code, errs)
	}
	if _, err := os.Lstat(nowhere); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("keygen wrote through the dangling symbolic link: %v", err)
	}
	// With --force symbolic links are replaced, not written through.
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(linked, "jwks.json")); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.bare("keygen", "--out", linked, "--force"); code != 0 {
		t.Fatalf("keygen --force over symbolic links: %d %s", code, errs)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Fatalf("keygen wrote through the symbolic link: target now %q", b)
	}
	if _, err := os.Lstat(nowhere); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("keygen --force wrote through the dangling symbolic link: %v", err)
	}
	for name, perm := range map[string]os.FileMode{"private.pem": 0o600, "jwks.json": 0o644} {
		st, err := os.Lstat(filepath.Join(linked, name))
		if err != nil || st.Mode().Perm() != perm || !st.Mode().IsRegular() {
			t.Fatalf("%s after keygen --force over a symbolic link: %v %v", name, st.Mode(), err)
		}
	}
	ents, _ := os.ReadDir(linked)
	if len(ents) != 2 {
		t.Fatalf("keygen left other files: %v", ents)
	}
}

func TestSortToolsSemVer(t *testing.T) {
	tools := []toolInfo{{Name: "b", Version: "1.0.0"}, {Name: "a", Version: "1.9.0"}, {Name: "a", Version: "1.2.0"},
		{Name: "a", Version: "1.10.0"}, {Name: "a", Version: "2.0.0-rc.1"}, {Name: "a", Version: "2.0.0"}, {Name: "a", Version: "weird"}}
	sortTools(tools)
	var got []string
	for _, tl := range tools {
		got = append(got, tl.Name+"@"+tl.Version)
	}
	want := "a@2.0.0 a@2.0.0-rc.1 a@1.10.0 a@1.9.0 a@1.2.0 a@weird b@1.0.0"
	if strings.Join(got, " ") != want {
		t.Fatalf("sorted %q, want %q", strings.Join(got, " "), want)
	}
}

// fakeHost serves newline-delimited JSON-RPC on a unix socket at path:
// answer returns a method's result, or nil never to answer. It records the
// params of every request.
type fakeHost struct {
	mu     sync.Mutex
	params map[string][]json.RawMessage
	conns  []net.Conn
}

func startFakeHost(t *testing.T, path string, answer func(method string) any) *fakeHost {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeHost{params: map[string][]json.RawMessage{}}
	t.Cleanup(func() {
		_ = ln.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range f.conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, conn)
			f.mu.Unlock()
			go f.serve(conn, answer)
		}
	}()
	return f
}

func (f *fakeHost) serve(conn net.Conn, answer func(method string) any) {
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil {
			return
		}
		f.mu.Lock()
		f.params[req.Method] = append(f.params[req.Method], req.Params)
		f.mu.Unlock()
		res := answer(req.Method)
		if res == nil {
			continue
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": res})
		if _, err := conn.Write(append(b, '\n')); err != nil {
			return
		}
	}
}

func (f *fakeHost) paramsOf(method string) []json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]json.RawMessage(nil), f.params[method]...)
}

// fakeAnswers is what the fake host answers: two versions of one tool,
// with their source, and a string result.
func fakeAnswers(method string) any {
	switch method {
	case "tools/list":
		return map[string]any{"tools": []map[string]any{
			{"name": "echo", "version": "1.9.0", "provider": "p", "runtime": "wasm", "trust": "Community", "inputSchema": map[string]any{}, "source": "/plugins/echo-1.9.wasm"},
			{"name": "echo", "version": "1.10.0", "provider": "p", "runtime": "wasm", "trust": "Community", "inputSchema": map[string]any{}, "source": "/plugins/echo-1.10.wasm"},
		}}
	case "tools/call":
		return map[string]any{"value": "hello"}
	}
	return nil
}

func TestListAndCallThroughFakeHost(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(e.data, "aios-host.sock") // the default socket
	f := startFakeHost(t, sock, fakeAnswers)

	// Source is kept, versions sort by SemVer, and a notice says that
	// --plugins (which e.run adds) does not change the running host's tools.
	code, out, errs := e.run("", "list", "--json")
	var tools []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &tools) != nil || len(tools) != 2 {
		t.Fatalf("list --json: %d %q %q", code, out, errs)
	}
	if tools[0]["version"] != "1.10.0" || tools[0]["source"] != "/plugins/echo-1.10.wasm" || tools[1]["source"] != "/plugins/echo-1.9.wasm" {
		t.Fatalf("list --json through a running host: %s", out)
	}
	for _, want := range []string{"using the tools of the host running on " + sock, "--plugins", "another --data"} {
		if !strings.Contains(errs, want) {
			t.Errorf("list notice: stderr %q lacks %q", errs, want)
		}
	}
	if strings.Count(errs, "\n") != 1 {
		t.Errorf("list notice is not one line: %q", errs)
	}
	cfg := writeConfig(t, "{}\n")
	code, out, errs = e.run("", "call", "echo", "{}", "--config", cfg)
	if code != 0 || out != "hello\n" {
		t.Fatalf("call through a running host: %d %q %q", code, out, errs)
	}
	for _, want := range []string{"using the tools of the host running on " + sock, "--plugins and --config", "--as AGENT"} {
		if !strings.Contains(errs, want) {
			t.Errorf("call notice: stderr %q lacks %q", errs, want)
		}
	}
	// Without --plugins and --config there is nothing to say.
	if code, _, errs := e.bare("list", "--data", e.data); code != 0 || errs != "" {
		t.Fatalf("list without --plugins: %d %q", code, errs)
	}

	// --timeout travels in whole milliseconds, rounded up.
	if code, _, errs := e.run("", "call", "echo", "{}", "--timeout", "1500us"); code != 0 {
		t.Fatalf("call --timeout 1500us: %d %q", code, errs)
	}
	calls := f.paramsOf("tools/call")
	if last := string(calls[len(calls)-1]); !strings.Contains(last, `"timeout_ms":2`) {
		t.Fatalf("tools/call params %s, want timeout_ms 2", last)
	}
}

func TestCallTimeoutBelowMillisecond(t *testing.T) {
	e := newEnv(t)
	for _, d := range []string{"1ns", "999us"} {
		code, _, errs := e.run("", "call", "analyze-complexity", "{}", "--timeout", d)
		if code != exitUsage || !strings.Contains(errs, "is below 1ms") {
			t.Fatalf("call --timeout %s: %d %q", d, code, errs)
		}
	}
	sock := filepath.Join(e.data, "fake.sock")
	f := startFakeHost(t, sock, fakeAnswers)
	if code, _, errs := e.run("", "call", "echo", "{}", "--timeout", "1ns", "--socket", sock); code != exitUsage {
		t.Fatalf("call --timeout 1ns through a running host: %d %q", code, errs)
	}
	if n := len(f.paramsOf("tools/call")); n != 0 {
		t.Fatalf("the call was sent (%d)", n)
	}
}

func TestSocketThatNeverAnswers(t *testing.T) {
	defer func(l, m time.Duration) { listWait, socketMargin = l, m }(listWait, socketMargin)
	listWait, socketMargin = 300*time.Millisecond, 300*time.Millisecond
	e := newEnv(t)
	sock := filepath.Join(e.data, "mute.sock")
	startFakeHost(t, sock, func(string) any { return nil })
	var out bytes.Buffer
	code, errs := runWith(t, strings.NewReader(""), &out, "list", "--socket", sock, "--data", e.data)
	if code != exitFail || !strings.Contains(errs, "the host running on "+sock+" did not answer tools/list within 300ms") {
		t.Fatalf("list on a mute socket: %d %q", code, errs)
	}
	start := time.Now()
	code, errs = runWith(t, strings.NewReader(""), &out, "call", "echo", "{}", "--timeout", "200ms", "--socket", sock, "--data", e.data)
	if code != exitFail || !strings.Contains(errs, "the host running on "+sock+" did not answer tools/call within 500ms") {
		t.Fatalf("call on a mute socket: %d %q", code, errs)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("call on a mute socket took %s", took)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFailedStdoutWrites(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	id := e.putSource()
	if code, _, errs := e.run("", "call", "analyze-complexity", `{"object_id":"`+id+`"}`); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := e.bare("keygen", "--out", filepath.Join(dir, "key")); code != 0 {
		t.Fatal(errs)
	}
	wit := filepath.Join(dir, "a.wit")
	if err := os.WriteFile(wit, []byte("package a:b;\ninterface i { f: func(x: u32) -> string; }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(e.data, "fake.sock")
	startFakeHost(t, sock, fakeAnswers)
	g := []string{"--data", e.data, "--plugins", e.plugins}
	cases := [][]string{
		{"version"},
		{"wit", wit},
		{"space", "put", "source", wit},
		{"space", "list", "source"},
		{"space", "spaces"},
		{"space", "get", "source", id},
		{"audit", "verify"},
		{"audit", "anchor", "--key", filepath.Join(dir, "key", "private.pem")},
		{"call", "analyze-complexity", `{"object_id":"` + id + `"}`},
		{"call", "echo", "{}", "--socket", sock},
		{"list"},
		{"list", "--json"},
		{"list", "--socket", sock},
		{"keygen", "--out", filepath.Join(dir, "key2")},
		{"help"},
	}
	for _, args := range cases {
		code, errs := runWith(t, strings.NewReader(""), failingWriter{}, append(args, g...)...)
		if code != exitFail || !strings.Contains(errs, "disk full") {
			t.Errorf("%q with a failing stdout: exit %d, stderr %q; want 1 and the error", args, code, errs)
		}
	}
}

func TestErrorMessagesAreNotFormats(t *testing.T) {
	e := newEnv(t)
	code, _, errs := e.run("", "audit", "verify", "--anchor", "5:%s%d", filepath.Join(e.data, "audit.jsonl"))
	if code != exitUsage || strings.Contains(errs, "%!") || !strings.Contains(errs, `"5:%s%d"`) {
		t.Fatalf("audit verify --anchor 5:%%s%%d: %d %q", code, errs)
	}
}

func TestSignRefusesWhatVerifyRefuses(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	if code, _, errs := e.bare("keygen", "--out", filepath.Join(dir, "key")); code != 0 {
		t.Fatal(errs)
	}
	// With an artifact to pin, which re-encodes the card before signing.
	if err := os.WriteFile(filepath.Join(dir, "tool.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	cards := map[string]struct{ card, want string }{
		"invalid UTF-8": {`{"adapter": {"id": "org.example.demo", "name": "Demo` + "\xff" + `", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "demo", "name": "Demo", "permission_level": "low"}], "artifact": {"path": "tool.wasm"}}`, "UTF-8"},
		"duplicate member": {`{"adapter": {"id": "org.example.demo", "name": "Demo", "name": "Other", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "demo", "name": "Demo", "permission_level": "low"}], "artifact": {"path": "tool.wasm"}}`, "duplicate"},
	}
	for name, c := range cards {
		// verify refuses them.
		signed := strings.Replace(c.card, `"artifact"`, `"signature": {"algorithm": "EdDSA", "key_id": "k", "value": "e30..AA"}, "artifact"`, 1)
		path := filepath.Join(dir, "signed-"+strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(signed), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out, _ := e.bare("verify", path, "--jwks", filepath.Join(dir, "key", "jwks.json")); code != exitFail || !strings.Contains(out, c.want) {
			t.Errorf("verify a card with %s: %d %q", name, code, out)
		}
	}
	for name, c := range cards {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(c.card), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errs := e.bare("sign", path, "--key", filepath.Join(dir, "key", "private.pem"))
		if code != exitFail || out != "" || !strings.Contains(errs, path) || !strings.Contains(errs, c.want) {
			t.Errorf("sign a card with %s: %d %q %q", name, code, out, errs)
		}
	}
}

func TestGlobalFlagValues(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"list", "--data", ""},
		{"--data", "", "version"},
		{"list", "--config", ""},
		{"space", "spaces", "--config", ""},
		{"list", "--plugins", ""},
	} {
		code, _, errs := e.bare(args...)
		if code != exitUsage || !strings.Contains(errs, "empty value") {
			t.Errorf("%q: %d %q; want 2 and empty value", args, code, errs)
		}
	}
	for _, cmd := range commands {
		code, _, errs := e.bare(cmd.name, "--log-level", "loud")
		if code != exitUsage || !strings.Contains(errs, `--log-level "loud"`) {
			t.Errorf("%s --log-level loud: %d %q; want 2", cmd.name, code, errs)
		}
	}
	if code, _, errs := e.bare("space", "spaces", "--log-level", "loud"); code != exitUsage || !strings.Contains(errs, `--log-level "loud"`) {
		t.Errorf("space spaces --log-level loud: %d %q", code, errs)
	}
	if code, _, errs := e.bare("--log-level", "loud", "space", "spaces", "--data", e.data); code != exitUsage {
		t.Errorf("--log-level loud before the command: %d %q", code, errs)
	}
}

func TestCallBadVersionConstraint(t *testing.T) {
	e := newEnv(t)
	code, _, errs := e.run("", "call", "analyze-complexity", "{}", "--version", "garbage")
	if code != exitUsage || !strings.Contains(errs, `--version "garbage" is not a SemVer constraint`) {
		t.Fatalf("call --version garbage: %d %q", code, errs)
	}
}

func TestVerifyJWKSAndURL(t *testing.T) {
	e := newEnv(t)
	card := filepath.Join(t.TempDir(), "adapter.json")
	if err := os.WriteFile(card, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.bare("verify", card, "--jwks", "keys.json", "--jwks-url", "https://example.invalid/jwks.json")
	if code != exitUsage || !strings.Contains(errs, "--jwks or --jwks-url, not both") {
		t.Fatalf("verify --jwks --jwks-url: %d %q", code, errs)
	}
}

// TestInProcessCallUsesDiscovery: `list` and `call` loading tools in their
// own process apply discovery's rules, as `run` does: a folder with an
// Adapter Card is loaded, and an unsigned file cannot take the id of a
// more trusted provider by being listed first. (They loaded bare files
// only, in folder order: the first claimant of an id won.)
func TestInProcessCallUsesDiscovery(t *testing.T) {
	e := newEnv(t)
	spoof, trusted := t.TempDir(), t.TempDir()
	write := func(path, src string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tool := func(who string) string {
		return `aios.provider({id: 'org.test.victim'});
aios.registerTool({name: 'who', description: 'who answers', parameters: {type: 'object'}}, () => '` + who + `');`
	}
	write(filepath.Join(spoof, "spoof.js"), tool("spoof"))
	write(filepath.Join(trusted, "victim.js"), tool("victim"))
	write(filepath.Join(trusted, "carded", "tool.js"), `aios.registerTool({name: 'carded', description: 'beside a card', parameters: {type: 'object'}}, () => 'card');`)
	write(filepath.Join(trusted, "carded", "adapter.json"), `{"adapter": {"id": "org.test.carded", "name": "Carded", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "carded", "name": "Carded", "permission_level": "low"}], "artifact": {"path": "tool.js"}}`)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	write(cfg, "plugins: ["+spoof+", "+trusted+"]\ndata: "+e.data+"\ntrust:\n  folders:\n    "+trusted+": Community\n")
	code, out, errs := e.bare("--config", cfg, "call", "who", "{}", "--json")
	if code != 0 || strings.TrimSpace(out) != `"victim"` {
		t.Fatalf("call who: %d %q %s", code, out, errs)
	}
	if code, out, errs := e.bare("--config", cfg, "call", "carded", "{}", "--json"); code != 0 || strings.TrimSpace(out) != `"card"` {
		t.Fatalf("call carded (a folder with an Adapter Card): %d %q %s", code, out, errs)
	}
}

// TestCallInterruptedWhileLoading: a `call` interrupted while its plugins
// load says so, instead of warnings about the interpreter and a NotFound
// for the tool whose provider did not finish loading.
func TestCallInterruptedWhileLoading(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb syncBuffer
	code := run(ctx, []string{"call", "analyze-complexity", "{}", "--plugins", e.plugins, "--data", e.data}, strings.NewReader(""), &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "interrupted while loading the plugins") || strings.Contains(errb.String(), "NotFound") {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
}

// TestInProcessMissingPluginFolder: `list` in its own process says when a
// plugin folder does not exist (it said nothing after moving to discovery).
func TestInProcessMissingPluginFolder(t *testing.T) {
	e := newEnv(t)
	missing := filepath.Join(t.TempDir(), "nope")
	code, _, errs := e.bare("list", "--plugins", missing, "--data", e.data)
	if code != 0 || !strings.Contains(errs, "plugin folder not readable") || !strings.Contains(errs, missing) {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
}

// TestListThroughFakeHostPages: `list` against a running host follows
// tools/list's nextCursor to the last page, and stops with an error at a
// cursor sent twice instead of asking forever.
func TestListThroughFakeHostPages(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(e.data, "aios-host.sock")
	var mu sync.Mutex
	n, loop := 0, false
	tool := func(name string) map[string]any {
		return map[string]any{"name": name, "version": "1.0.0", "provider": "p", "runtime": "native", "trust": "System", "inputSchema": map[string]any{}}
	}
	f := startFakeHost(t, sock, func(method string) any {
		if method != "tools/list" {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		switch {
		case loop:
			return map[string]any{"tools": []any{tool("again")}, "nextCursor": "same"}
		case n == 1:
			return map[string]any{"tools": []any{tool("a"), tool("b")}, "nextCursor": "c1"}
		default:
			return map[string]any{"tools": []any{tool("c")}}
		}
	})
	code, out, errs := e.bare("list", "--json", "--data", e.data)
	var tools []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &tools) != nil || len(tools) != 3 || tools[2]["name"] != "c" {
		t.Fatalf("list --json over two pages: %d %q %q", code, out, errs)
	}
	if ps := f.paramsOf("tools/list"); len(ps) != 2 || !strings.Contains(string(ps[1]), `"cursor":"c1"`) {
		t.Fatalf("tools/list params %q, want the second with cursor c1", ps)
	}
	mu.Lock()
	loop = true
	mu.Unlock()
	code, _, errs = e.bare("list", "--data", e.data)
	if code == 0 || !strings.Contains(errs, `sent the cursor "same" twice`) {
		t.Fatalf("list with a cursor that repeats: %d %q", code, errs)
	}
}

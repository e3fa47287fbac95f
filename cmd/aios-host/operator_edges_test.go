package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// probeChildEnv makes the test binary, started again by a probe test, run
// aios-host with the arguments in AIOS_PROBE_ARGS (separated by \x1f) and
// exit with its status: signals then reach a real process.
const probeChildEnv = "AIOS_PROBE_CLI_CHILD"

func init() {
	if os.Getenv(probeChildEnv) != "1" {
		return
	}
	args := strings.Split(os.Getenv("AIOS_PROBE_ARGS"), "\x1f")
	os.Exit(run(context.Background(), args, os.Stdin, os.Stdout, os.Stderr))
}

// probeChild starts aios-host args in a child process (through wrapper,
// e.g. nohup, when not empty) and waits until its stderr has marker.
func probeChild(t *testing.T, wrapper []string, marker string, args ...string) (*exec.Cmd, *syncBuffer, chan error) {
	t.Helper()
	return probeChildWith(t, wrapper, nil, marker, args...)
}

// probeChildIn is probeChild with stdin as the child's standard input.
func probeChildIn(t *testing.T, stdin io.Reader, marker string, args ...string) (*exec.Cmd, *syncBuffer, chan error) {
	t.Helper()
	return probeChildWith(t, nil, stdin, marker, args...)
}

func probeChildWith(t *testing.T, wrapper []string, stdin io.Reader, marker string, args ...string) (*exec.Cmd, *syncBuffer, chan error) {
	t.Helper()
	argv := append(append([]string(nil), wrapper...), os.Args[0], "-test.run=^$")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = stdin
	cmd.Env = append(os.Environ(), probeChildEnv+"=1", "AIOS_PROBE_ARGS="+strings.Join(args, "\x1f"))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), marker) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the child's log after 60 s:\n%s", marker, stderr.String())
		}
		select {
		case err := <-done:
			done <- err
			t.Fatalf("child exited early (%v):\n%s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return cmd, stderr, done
}

// TestRunSIGHUPShutsDown: a SIGHUP (the terminal of a foreground
// `aios-host run` closed, an ssh session dropped) ended the host at once,
// Go's default: no shutdown, the audit records not yet written lost, the
// socket file left behind. It now shuts down as for SIGTERM, exit 0.
func TestRunSIGHUPShutsDown(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		// Started under nohup (a CI run detached with it): the child
		// inherits SIGHUP ignored, and run leaves a SIGHUP its starter
		// ignores ignored, by design (cmd_run.go).
		t.Skip("SIGHUP is ignored in this test process (nohup): its children inherit that, and run keeps it so")
	}
	e := newEnv(t)
	sock := filepath.Join(t.TempDir(), "h.sock")
	cmd, stderr, done := probeChild(t, nil, "aios-host serving", "run", "--plugins", e.plugins, "--data", e.data, "--socket", sock)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Fatalf("run after SIGHUP: %v (want exit 0 after a shutdown):\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("run still running 20 s after SIGHUP:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("no shutdown after SIGHUP:\n%s", stderr.String())
	}
	if _, err := os.Lstat(sock); err == nil {
		t.Errorf("socket %s left behind after SIGHUP", sock)
	}
}

// TestRunNohupKeepsServing: a host started under nohup (SIGHUP
// ignored) must keep ignoring it: catching SIGHUP must not undo nohup.
func TestRunNohupKeepsServing(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("no nohup")
	}
	e := newEnv(t)
	sock := filepath.Join(t.TempDir(), "h.sock")
	cmd, stderr, done := probeChild(t, []string{nohup}, "aios-host serving", "run", "--plugins", e.plugins, "--data", e.data, "--socket", sock)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err
		t.Fatalf("run under nohup ended at SIGHUP (%v):\n%s", err, stderr.String())
	case <-time.After(500 * time.Millisecond):
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Fatalf("run under nohup after SIGTERM: %v:\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("run still running 20 s after SIGTERM:\n%s", stderr.String())
	}
}

// TestAuditShowBadFilterIsUsage: a bad --since, --until, --limit,
// --tool or --outcome value of audit show exited 1, the status of a log
// that fails verification: a script checking the log read a typo as
// tampering. It is a usage error (exit 2), as a bad --after is.
func TestAuditShowBadFilterIsUsage(t *testing.T) {
	e := newEnv(t)
	for _, bad := range [][]string{
		{"--since", "yesterday"},
		{"--until", "-1h"},
		{"--limit", "-1"},
		{"--tool", "["},
		{"--outcome", "timeout"},
	} {
		code, out, errs := e.run("", append([]string{"audit", "show"}, bad...)...)
		if code != exitUsage || !strings.Contains(errs, bad[0]) || out != "" {
			t.Errorf("audit show %v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", bad, code, out, errs, bad[0])
		}
	}
}

// TestRunBadEngineIsUsage: `run --engine bogus` exited 1 (a failed
// operation) where `run --wire bogus` exits 2: both are a bad flag value.
func TestRunBadEngineIsUsage(t *testing.T) {
	code, _, errs := newEnv(t).run("", "run", "--engine", "bogus")
	if code != exitUsage || !strings.Contains(errs, `--engine "bogus"`) {
		t.Fatalf("run --engine bogus: %d %q", code, errs)
	}
}

// TestRunHTTPCheckedBeforeLoading: `run --http ADDR` with an
// address that cannot be listened on (no port, a port in use) loaded
// every plugin first (seconds, worker processes) and only then failed;
// the socket is checked before loading (TestRunSocketInUseFailsBeforeLoading),
// the HTTP address is now too.
func TestRunHTTPCheckedBeforeLoading(t *testing.T) {
	e := newEnv(t)
	wasm, err := os.ReadFile(filepath.Join("..", "..", "samples", "plugins", "c-echo.wasm"))
	if err != nil {
		t.Skip("samples not built:", err)
	}
	if err := os.WriteFile(filepath.Join(e.plugins, "c-echo.wasm"), wasm, 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, addr := range []string{"7700", ln.Addr().String()} {
		sock := filepath.Join(t.TempDir(), "h.sock")
		code, errs := runWith(t, strings.NewReader(""), io.Discard, "run", "--plugins", e.plugins, "--data", e.data, "--socket", sock, "--http", addr)
		if code == 0 || !strings.Contains(errs, addr) {
			t.Errorf("run --http %s: exit %d, stderr %s; want a failure naming the address", addr, code, errs)
		}
		if strings.Contains(errs, "c-echo") {
			t.Errorf("run --http %s loaded the plugins before finding the address unusable:\n%s", addr, errs)
		}
		if !strings.Contains(errs, "aios-host: --http "+addr+": ") {
			t.Errorf("run --http %s: the error does not start by naming the flag: %s", addr, errs)
		}
		if _, err := os.Lstat(sock); err == nil {
			t.Errorf("run --http %s left its socket %s", addr, sock)
		}
	}
}

// TestHelpExtraArguments: `help run extra` printed run's help and
// ignored the rest; like every other command's, extra arguments are a
// usage error.
func TestHelpExtraArguments(t *testing.T) {
	code, out, errs := newEnv(t).bare("help", "run", "extra")
	if code != exitUsage || !strings.Contains(errs, "extra") {
		t.Fatalf("help run extra: %d %q %q", code, out, errs)
	}
}

// TestListJSONEmptyThroughHost: `list --json` against a running
// host with no tools (its built-in provider disabled, no plugins)
// printed null, where the in-process list prints [] (README: an array).
func TestListJSONEmptyThroughHost(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(e.data, "aios-host.sock")
	startFakeHost(t, sock, func(method string) any {
		if method == "tools/list" {
			return map[string]any{"tools": []any{}}
		}
		return nil
	})
	code, out, errs := e.bare("list", "--json", "--data", e.data)
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("list --json of a host without tools: %d %q %q, want []", code, out, errs)
	}
}

// TestRunServerSectionCheckedFirst: a mistake in the config's server
// section (server.sokcet) stopped `run` only after every plugin had
// loaded (the server decodes it last), and the socket checked before
// loading was the default one.
func TestRunServerSectionCheckedFirst(t *testing.T) {
	e := newEnv(t)
	wasm, err := os.ReadFile(filepath.Join("..", "..", "samples", "plugins", "c-echo.wasm"))
	if err != nil {
		t.Skip("samples not built:", err)
	}
	if err := os.WriteFile(filepath.Join(e.plugins, "c-echo.wasm"), wasm, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "server:\n  sokcet: "+filepath.Join(t.TempDir(), "h.sock")+"\n")
	code, errs := runWith(t, strings.NewReader(""), io.Discard, "run", "--plugins", e.plugins, "--data", e.data, "--config", cfg)
	if code != exitFail || !strings.Contains(errs, "config.yaml:2: server.sokcet") {
		t.Fatalf("run with server.sokcet: exit %d, stderr %s; want exit 1 naming config.yaml:2: server.sokcet", code, errs)
	}
	if strings.Contains(errs, "c-echo") {
		t.Errorf("run loaded the plugins before finding the server section bad:\n%s", errs)
	}
}

// TestFlagErrors: the flag package's own errors reached the user as
// they are: "flag provided but not defined: -frob" (one dash, no
// "aios-host:"), and for a value that does not parse `invalid value "5"
// for flag -timeout: parse error`, which does not say what is wanted.
func TestFlagErrors(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--frob"}, "aios-host: unknown flag --frob (see 'aios-host list --help')\n"},
		{[]string{"call", "x", "--timeout", "5"}, `aios-host: --timeout "5": want a duration such as 5s, 1m30s or 500ms` + "\n"},
		{[]string{"call", "x", "--timeout"}, "aios-host: --timeout needs a value\n"},
		{[]string{"audit", "show", "--limit", "ten"}, `aios-host: --limit "ten": want a whole number` + "\n"},
		{[]string{"list", "--json=maybe"}, `aios-host: --json "maybe": want true or false` + "\n"},
		{[]string{"--config"}, "aios-host: --config needs a value\n"},
		{[]string{"list", "--data="}, `aios-host: --data "": empty value` + "\n"},
	} {
		code, out, errs := e.bare(tc.args...)
		if code != exitUsage || !strings.HasPrefix(errs, tc.want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and stderr starting %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestCallEmptyParams: `call TOOL -` with nothing on standard input
// (or an empty argument) said "params are not valid JSON: json: EOF",
// which names neither the input nor what is wanted.
func TestCallEmptyParams(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ arg, stdin, want string }{
		{"-", "", "aios-host: params from standard input are empty: want a JSON object, e.g. {}\n"},
		{"-", " \n", "aios-host: params from standard input are empty: want a JSON object, e.g. {}\n"},
		{"", "", "aios-host: params are empty: want a JSON object, e.g. {}\n"},
		{"-", "{", "aios-host: params from standard input are not valid JSON"},
	} {
		code, out, errs := e.run(tc.stdin, "call", "analyze-complexity", tc.arg)
		if code != exitUsage || !strings.HasPrefix(errs, tc.want) || out != "" {
			t.Errorf("call analyze-complexity %q <<< %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.arg, tc.stdin, code, out, errs, tc.want)
		}
	}
}

// TestVerifyBadJWKSURL: `verify CARD --jwks-url notaurl` (or
// ftp://…, file://…) printed "invalid: CARD: unknown signing key: …
// unsupported protocol scheme", exit 1, as if the card were bad; the URL
// is the mistake, a usage error.
func TestVerifyBadJWKSURL(t *testing.T) {
	e := newEnv(t)
	card := filepath.Join(t.TempDir(), "adapter.json")
	if err := os.WriteFile(card, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"notaurl", "ftp://x/jwks", "file:///etc/passwd", "http://[::1", "https://"} {
		code, out, errs := e.bare("verify", card, "--jwks-url", u)
		if code != exitUsage || !strings.Contains(errs, "--jwks-url") || strings.Contains(out, "invalid") {
			t.Errorf("verify --jwks-url %q: exit %d, stdout %q, stderr %q; want exit 2 naming --jwks-url", u, code, out, errs)
		}
	}
}

// TestHelpFlagBeforeCommand: `aios-host --help run` (or -h call)
// printed the list of commands, not the help of the command named.
func TestHelpFlagBeforeCommand(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"--help", "run"}, {"-h", "call"}, {"--data", e.data, "-help", "audit"}} {
		name := args[len(args)-1]
		code, out, errs := e.bare(args...)
		if code != 0 || !strings.HasPrefix(out, "Usage: aios-host "+name) || errs != "" {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q; want %s's help", args, code, out, errs, name)
		}
	}
	if code, out, _ := e.bare("--help"); code != 0 || !strings.Contains(out, "Commands:") {
		t.Errorf("--help: %d %.80q", code, out)
	}
}

// TestShutdownDuplicateSignals: `timeout 10 aios-host run` always
// ended with "second signal during shutdown" (exit 1, records not yet
// written lost): timeout sends SIGTERM to the process and then to its
// process group, so the host got two at once. And a SIGHUP during the
// shutdown (a terminal closing sends more than one) ended the process by
// its default action. Both are now ignored; a later SIGTERM still cuts
// the shutdown short.
func TestShutdownDuplicateSignals(t *testing.T) {
	stubForcedExit(t)
	log := slog.New(slog.DiscardHandler)
	hang := make(chan struct{})
	defer close(hang)
	again := make(chan os.Signal, 4)
	done := make(chan int, 1)
	go func() {
		done <- awaitShutdown(again, time.Now(), log, func() int { <-hang; return exitOK })
	}()
	again <- syscall.SIGTERM // the copy sent to the process group
	again <- syscall.SIGHUP
	select {
	case code := <-done:
		t.Fatalf("a SIGTERM with the first, or a SIGHUP, ended the shutdown: exit %d", code)
	case <-time.After(sameSignalWindow + 100*time.Millisecond):
	}
	again <- syscall.SIGHUP
	select {
	case code := <-done:
		t.Fatalf("a SIGHUP ended the shutdown: exit %d", code)
	case <-time.After(50 * time.Millisecond):
	}
	again <- syscall.SIGINT // an operator's second Ctrl-C
	select {
	case code := <-done:
		if code != exitFail {
			t.Errorf("second SIGINT: exit %d, want %d", code, exitFail)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a later SIGINT did not end a hanging shutdown")
	}
}

// TestServerHTTPNamesKey: an address of server.http that cannot be
// listened on said "http 7700: …", naming neither the key nor the file.
func TestServerHTTPNamesKey(t *testing.T) {
	e := newEnv(t)
	cfg := writeConfig(t, "limits: {}\nserver:\n  http: \"7700\"\n")
	code, errs := runWith(t, strings.NewReader(""), io.Discard, "run", "--plugins", e.plugins, "--data", e.data, "--config", cfg, "--socket", filepath.Join(t.TempDir(), "h.sock"))
	if code != exitFail || !strings.Contains(errs, "aios-host: "+cfg+":3: server.http: 7700: ") {
		t.Fatalf("run with server.http 7700: exit %d, stderr %s; want the file, line 3 and server.http", code, errs)
	}
}

// TestPythonSectionErrorNamesFileAndKey: an unknown key or a
// mistyped value under runtimes.python said "c.yaml:2: runtimes.python:
// config:3: bogus: unknown key", a second, made-up file name "config" and
// the key without its path.
func TestPythonSectionErrorNamesFileAndKey(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ yaml, want string }{
		{"runtimes:\n  python:\n    bogus: 1\n", ":3: runtimes.python.bogus: unknown key"},
		{"runtimes:\n  python:\n    pool_size: many\n", ":3: runtimes.python.pool_size: cannot unmarshal"},
		{"runtimes:\n  python:\n    pool_size: 0\n", ":3: runtimes.python.pool_size: 0: want 1..256"},
		{"runtimes:\n  python:\n    memory_mb: 8\n", ":3: runtimes.python.memory_mb: 8: CPython needs"},
	} {
		cfg := writeConfig(t, tc.yaml)
		code, _, errs := e.run("", "list", "--config", cfg)
		if code != exitFail || !strings.HasPrefix(errs, "aios-host: "+cfg+tc.want) || strings.Contains(errs, "config:") {
			t.Errorf("%q: exit %d, stderr %q; want %q after the file name", tc.yaml, code, errs, tc.want)
		}
	}
}

// TestAuditShowMissingLog: audit show of a log that does not exist
// printed the table header on standard output, then the error.
func TestAuditShowMissingLog(t *testing.T) {
	e := newEnv(t)
	// The configured log, never written, is said to be so
	// (TestAuditNoLogYetSaysSo); a FILE given, not found.
	for _, tc := range []struct {
		args []string
		want string
	}{{[]string{"audit", "show"}, "no audit log at"}, {[]string{"audit", "show", filepath.Join(e.data, "none.jsonl")}, "no such file"}} {
		args := tc.args
		code, out, errs := e.run("", args...)
		if code != exitFail || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1, the error only", args, code, out, errs)
		}
	}
}

// TestCallHugeTimeout: --timeout 9223372036854775807ns (the largest
// duration) overflowed when rounded up to whole milliseconds: the call
// went with a negative timeout_ms (or none in-process).
func TestCallHugeTimeout(t *testing.T) {
	e := newEnv(t)
	f := startFakeHost(t, filepath.Join(e.data, "aios-host.sock"), fakeAnswers)
	if code, _, errs := e.bare("call", "echo", "{}", "--timeout", "9223372036854775807ns", "--data", e.data); code != 0 {
		t.Fatalf("call --timeout max: %d %q", code, errs)
	}
	calls := f.paramsOf("tools/call")
	if len(calls) != 1 || !strings.Contains(string(calls[0]), `"timeout_ms":9223372036854`) {
		t.Fatalf("tools/call params %s, want timeout_ms 9223372036854", calls)
	}
}

// TestSignedAnchorErrors: an empty or garbled --signed-anchor file
// was refused as a "malformed card signature: go-jose/go-jose: empty
// input": no card is involved, and an empty file is said so.
func TestSignedAnchorErrors(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", filepath.Join(dir, "k")); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	jwks := filepath.Join(dir, "k", "jwks.json")
	for body, want := range map[string]string{"": "is empty", "\n": "is empty", "abc.def": "malformed signed token"} {
		anchor := filepath.Join(dir, "a.jws")
		if err := os.WriteFile(anchor, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, errs := e.run("", "audit", "verify", "--signed-anchor", anchor, "--jwks", jwks)
		if code != exitFail || !strings.Contains(errs, anchor) || !strings.Contains(errs, want) || strings.Contains(errs, "card") {
			t.Errorf("signed anchor %q: exit %d, stderr %q; want exit 1 naming the file and %q, not a card", body, code, errs, want)
		}
	}
}

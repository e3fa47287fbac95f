package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// env is an isolated aios-host: its own data dir and an empty plugin dir.
type env struct {
	t       *testing.T
	data    string
	plugins string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, data: t.TempDir(), plugins: t.TempDir()}
	t.Setenv("AIOS_DATA", e.data)
	return e
}

// syncBuffer is a bytes.Buffer safe for a command writing while a test reads.
type syncBuffer = testutil.SyncBuffer

// run runs aios-host with the env's global flags appended.
func (e *env) run(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb syncBuffer
	args = append(args, "--plugins", e.plugins, "--data", e.data)
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// runningHost is `aios-host run` serving in the background (startRun).
type runningHost struct {
	t      *testing.T
	cancel context.CancelFunc
	done   chan int
	stderr *syncBuffer
}

// startRun starts `aios-host run` with the env's global flags and then
// args, and waits up to 10 s for marker in its log. It fails the test if
// run exits first or the marker never appears; run is cancelled when the
// test ends.
func (e *env) startRun(marker string, args ...string) *runningHost {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	r := &runningHost{t: e.t, cancel: cancel, done: make(chan int, 1), stderr: &syncBuffer{}}
	args = append([]string{"run", "--plugins", e.plugins, "--data", e.data}, args...)
	go func() {
		var out syncBuffer
		r.done <- run(ctx, args, strings.NewReader(""), &out, r.stderr)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(r.stderr.String(), marker) {
		if time.Now().After(deadline) {
			e.t.Fatalf("run did not start (no %q in its log): %s", marker, r.stderr.String())
		}
		select {
		case code := <-r.done:
			e.t.Fatalf("run exited early with %d: %s", code, r.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return r
}

// stop cancels run and fails the test unless it exits 0 within 10 s.
func (r *runningHost) stop() {
	r.t.Helper()
	r.cancel()
	select {
	case code := <-r.done:
		if code != 0 {
			r.t.Fatalf("run exited with %d: %s", code, r.stderr.String())
		}
	case <-time.After(10 * time.Second):
		r.t.Fatal("run did not stop after cancel")
	}
}

// bare runs aios-host with exactly args.
func (e *env) bare(args ...string) (int, string, string) {
	var out, errb syncBuffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

const goSource = `package main

func main() {
	for i := 0; i < 10; i++ {
		if i%2 == 0 && i > 3 {
			println(i)
		}
	}
}
`

func (e *env) putSource() string {
	e.t.Helper()
	f := filepath.Join(e.t.TempDir(), "main.go")
	if err := os.WriteFile(f, []byte(goSource), 0o600); err != nil {
		e.t.Fatal(err)
	}
	code, out, errs := e.run("", "space", "put", "source", f)
	if code != 0 {
		e.t.Fatalf("space put: %d %s", code, errs)
	}
	return strings.TrimSpace(out)
}

func TestHelpForEveryCommand(t *testing.T) {
	e := newEnv(t)
	for _, cmd := range commands {
		t.Run(cmd.name, func(t *testing.T) {
			code, out, _ := e.bare(cmd.name, "--help")
			if code != 0 || !strings.Contains(out, "Usage: aios-host "+cmd.name) {
				t.Fatalf("%s --help: code %d, stdout %q", cmd.name, code, out)
			}
			code, out, _ = e.bare("help", cmd.name)
			if code != 0 || !strings.Contains(out, "Usage: aios-host "+cmd.name) {
				t.Fatalf("help %s: code %d, stdout %q", cmd.name, code, out)
			}
		})
	}
	code, out, _ := e.bare("--help")
	if code != 0 || !strings.Contains(out, "Commands:") {
		t.Fatalf("--help: %d %q", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"list", "--frob"}, "aios-host: unknown flag --frob"},
		{"call without tool", []string{"call"}, "call needs a tool name"},
		{"call bad json", []string{"call", "analyze-complexity", "{not json"}, "params are not valid JSON"},
		{"call bad tool name", []string{"call", "../x"}, "invalid tool name"},
		{"space no sub", []string{"space"}, "space needs a sub-command"},
		{"space bad sub", []string{"space", "rm", "x"}, "unknown space sub-command"},
		{"space put args", []string{"space", "put", "source"}, "space put takes SPACE and FILE, got 1 argument(s)"},
		{"audit no verify", []string{"audit"}, "want: audit verify"},
		{"run args", []string{"run", "extra"}, "run takes no arguments"},
		{"bad log level", []string{"list", "--log-level", "loud"}, "--log-level"},
		{"help unknown", []string{"help", "nope"}, "unknown command"},
		// A typo of a command is answered with the command meant.
		{"misspelt command", []string{"lsit"}, `unknown command "lsit" (did you mean "list"?)`},
		{"help misspelt", []string{"help", "inspcet"}, `unknown command "inspcet" (did you mean "inspect"?)`},
		// --help before an unknown command printed the general help and
		// exited 0, as if the command were known.
		{"--help unknown", []string{"--help", "nope"}, `unknown command "nope"`},
		{"--help after global flags", []string{"--log-level", "debug", "--help", "inspcet"}, `unknown command "inspcet" (did you mean "inspect"?)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := e.bare(c.args...)
			if code != exitUsage || !strings.Contains(errs, c.want) {
				t.Fatalf("code %d, stderr %q; want 2 and %q", code, errs, c.want)
			}
			if c.name == "call bad json" && strings.Contains(errs, "Usage:") {
				t.Fatalf("a bad params value printed the usage text: %q", errs)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	e := newEnv(t)
	code, out, _ := e.bare("version")
	if code != 0 || !strings.HasPrefix(out, "aios-host ") || !strings.Contains(out, "abi format 1") {
		t.Fatalf("version: %d %q", code, out)
	}
}

func TestSpacePutGet(t *testing.T) {
	e := newEnv(t)
	id := e.putSource()
	if !strings.HasPrefix(id, "sha256:") || len(id) != 71 {
		t.Fatalf("put printed %q", id)
	}
	// Global flags before the command name work too.
	code, out, errs := e.bare("--data", e.data, "space", "get", "source", id)
	if code != 0 || out != goSource {
		t.Fatalf("space get: %d %q %s", code, out, errs)
	}
	code, out, _ = e.run("hello", "space", "put", "notes", "-")
	if code != 0 || !strings.HasPrefix(out, "sha256:") {
		t.Fatalf("put from stdin: %d %q", code, out)
	}
	code, out, _ = e.run("", "space", "list", "source")
	if code != 0 || strings.TrimSpace(out) != id {
		t.Fatalf("space list: %d %q", code, out)
	}
	code, out, _ = e.run("", "space", "spaces")
	if code != 0 || out != "notes\nsource\n" {
		t.Fatalf("space spaces: %d %q", code, out)
	}
	bad := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"space", "get", "source", "sha256:../../etc/passwd"}, exitUsage, "ObjectId"},
		{[]string{"space", "get", "..", id}, exitUsage, "space name"},
		{[]string{"space", "get", "source", strings.ToUpper(id)}, exitUsage, "ObjectId"},
		{[]string{"space", "get", "other", id}, exitFail, "not found"},
		{[]string{"space", "put", "source", "/no/such/file"}, exitFail, "no such file"},
	}
	for _, b := range bad {
		code, _, errs := e.run("", b.args...)
		if code != b.code || !strings.Contains(errs, b.want) {
			t.Errorf("%v: code %d stderr %q; want %d and %q", b.args, code, errs, b.code, b.want)
		}
	}
}

func TestListBuiltin(t *testing.T) {
	e := newEnv(t)
	code, out, errs := e.run("", "list")
	if code != 0 || !strings.Contains(out, "analyze-complexity") || !strings.Contains(out, "NAME") {
		t.Fatalf("list: %d %q %s", code, out, errs)
	}
	code, out, _ = e.run("", "list", "--json")
	if code != 0 {
		t.Fatalf("list --json: %d", code)
	}
	var tools []map[string]any
	if err := json.Unmarshal([]byte(out), &tools); err != nil {
		t.Fatalf("list --json is not a JSON array: %v\n%s", err, out)
	}
	found := false
	for _, tl := range tools {
		for _, k := range []string{"name", "version", "runtime", "provider", "description"} {
			if _, ok := tl[k]; !ok {
				t.Errorf("tool %v lacks %q", tl["name"], k)
			}
		}
		if tl["name"] == "analyze-complexity" && tl["runtime"] == "native" && tl["provider"] == "org.aios.samples.complexity" {
			found = true
		}
	}
	if !found {
		t.Fatalf("analyze-complexity not listed: %s", out)
	}
}

func TestCallAnalyzeComplexity(t *testing.T) {
	e := newEnv(t)
	id := e.putSource()
	params := `{"object_id":"` + id + `","language":"go"}`

	code, out, errs := e.run("", "call", "analyze-complexity", params)
	if code != 0 || !strings.Contains(out, `"complexity": 4`) || !strings.Contains(out, `"rating": "low"`) {
		t.Fatalf("call: %d %q %s", code, out, errs)
	}
	// Flags after the positional arguments, and --json.
	code, out, _ = e.run("", "call", "analyze-complexity", params, "--json", "--as", "cli", "--version", "^1", "--timeout", "10s")
	var res map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res["complexity"] != float64(4) {
		t.Fatalf("call --json: %d %q", code, out)
	}
	// Params from standard input.
	code, out, _ = e.run(params, "call", "analyze-complexity", "-", "--json")
	if code != 0 || !strings.Contains(out, `"complexity":4`) {
		t.Fatalf("call with stdin params: %d %q", code, out)
	}

	failures := []struct {
		name string
		args []string
		code string
	}{
		{"unknown tool", []string{"call", "no-such-tool", "{}"}, "NotFound"},
		{"unknown agent", []string{"call", "analyze-complexity", params, "--as", "mallory"}, "CapabilityDenied"},
		{"schema violation", []string{"call", "analyze-complexity", `{"language":"go"}`}, "InvalidParams"},
		{"forged id", []string{"call", "analyze-complexity", `{"object_id":"sha256:../../x"}`}, "InvalidParams"},
		{"bad version", []string{"call", "analyze-complexity", params, "--version", "^9"}, "NotFound"},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			code, _, errs := e.run("", f.args...)
			if code != exitFail || !strings.HasPrefix(errs, f.code+": ") {
				t.Fatalf("code %d stderr %q; want 1 and %s", code, errs, f.code)
			}
			code, out, _ := e.run("", append(f.args, "--json")...)
			var obj map[string]any
			if code != exitFail || json.Unmarshal([]byte(out), &obj) != nil || obj["code"] != f.code || obj["message"] == "" {
				t.Fatalf("--json: code %d stdout %q", code, out)
			}
		})
	}

	// Every call above left an audit record; the log verifies.
	code, out, errs = e.run("", "audit", "verify", filepath.Join(e.data, "audit.jsonl"))
	if code != 0 || !strings.Contains(out, "OK:") {
		t.Fatalf("audit verify: %d %q %s", code, out, errs)
	}
	code, out, _ = e.run("", "audit", "verify") // the configured log
	if code != 0 || !strings.Contains(out, " 13 records") {
		t.Fatalf("audit verify (default path): %d %q", code, out)
	}
}

func TestAuditVerifyDetectsEdit(t *testing.T) {
	e := newEnv(t)
	id := e.putSource()
	for range 3 {
		if code, _, errs := e.run("", "call", "analyze-complexity", `{"object_id":"`+id+`"}`); code != 0 {
			t.Fatal(errs)
		}
	}
	log := filepath.Join(e.data, "audit.jsonl")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = strings.Replace(lines[1], `"outcome":"ok"`, `"outcome":"no"`, 1)
	edited := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(edited, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "audit", "verify", edited)
	if code != exitFail || !strings.Contains(errs, edited+":2: hash mismatch") {
		t.Fatalf("verify of edited log: %d %q", code, errs)
	}
	code, _, errs = e.run("", "audit", "verify", filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != exitFail || !strings.Contains(errs, "no such file") {
		t.Fatalf("verify of missing log: %d %q", code, errs)
	}

	// The anchor verify prints catches records cut from the end later,
	// which the chain alone cannot.
	code, out, errs := e.run("", "audit", "verify", log)
	i := strings.Index(out, "anchor ")
	if code != 0 || i < 0 {
		t.Fatalf("verify: %d %q %s", code, out, errs)
	}
	anchor := strings.TrimSpace(out[i+len("anchor "):])
	if !strings.HasPrefix(anchor, "3:sha256:") {
		t.Fatalf("anchor %q, want 3:sha256:…", anchor)
	}
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	intact := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(cut, []byte(strings.Join(intact[:2], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := e.run("", "audit", "verify", cut); code != 0 {
		t.Fatalf("a cut log without an anchor: exit %d, want 0 (the chain cannot see it)", code)
	}
	code, _, errs = e.run("", "audit", "verify", "--anchor", anchor, cut)
	if code != exitFail || !strings.Contains(errs, "cut from the end") {
		t.Fatalf("verify --anchor of a cut log: %d %q", code, errs)
	}
	if code, out, errs := e.run("", "audit", "verify", "--anchor", anchor, log); code != 0 {
		t.Fatalf("verify --anchor of the intact log: %d %q %s", code, out, errs)
	}
	code, _, errs = e.run("", "audit", "verify", "--anchor", "3:sha256:nothex", log)
	if code != exitUsage || !strings.Contains(errs, "is not sha256:") {
		t.Fatalf("verify --anchor with a bad anchor: %d %q", code, errs)
	}
}

func TestBadConfigFile(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("agents:\n  cli:\n    grants: [\"Foo(\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "list", "--config", cfg)
	if code != exitFail || !strings.Contains(errs, "config.yaml:3: agents.cli.grants[0]") {
		t.Fatalf("list with bad config: %d %q", code, errs)
	}
}

func TestConfigAgentAndGrants(t *testing.T) {
	e := newEnv(t)
	id := e.putSource()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	src := "agents:\n  nosource:\n    grants: [\"CallTool(*)\"]\n"
	if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "call", "analyze-complexity", `{"object_id":"`+id+`"}`, "--as", "nosource", "--config", cfg)
	if code != exitFail || !strings.HasPrefix(errs, "CapabilityDenied: ") {
		t.Fatalf("call without ReadSpace(source): %d %q", code, errs)
	}
}

func TestRunServesUntilCancelled(t *testing.T) {
	e := newEnv(t)
	r := e.startRun("aios-host serving")
	if !strings.Contains(r.stderr.String(), "tools=1") {
		t.Errorf("run log does not count the built-in tool: %s", r.stderr.String())
	}
	r.stop()
	if !strings.Contains(r.stderr.String(), "shutting down") {
		t.Fatalf("no shutdown message: %s", r.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(e.data, "audit.jsonl")); err != nil {
		t.Fatalf("run did not open the audit log: %v", err)
	}
}

func TestParseInterspersed(t *testing.T) {
	c := &cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	fs := c.flags("x", "x", "x")
	j := fs.Bool("json", false, "")
	pos, _, ok := c.parse(fs, []string{"a", "--json", "b", "--data", "d", "--", "--not-a-flag"})
	if !ok || !*j || c.data != "d" || strings.Join(pos, " ") != "a b --not-a-flag" {
		t.Fatalf("pos %q json %v data %q ok %v", pos, *j, c.data, ok)
	}
}

// TestSubcommandHelp: `space help` and `audit help` were usage errors
// (exit 2, "unknown space sub-command \"help\""); they print the
// command's help, as `help space` and `space --help` do.
func TestSubcommandHelp(t *testing.T) {
	e := newEnv(t)
	for _, cmd := range []string{"space", "audit"} {
		code, out, errs := e.bare(cmd, "help")
		_, want, _ := e.bare("help", cmd)
		if code != 0 || errs != "" || out != want || !strings.Contains(out, "Usage: aios-host "+cmd) {
			t.Errorf("%s help: exit %d, stdout %.80q, stderr %.80q; want exit 0 and the help of 'help %s'", cmd, code, out, errs, cmd)
		}
	}
}

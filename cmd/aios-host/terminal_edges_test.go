package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileJS is a plugin whose texts carry what a terminal acts on: an OSC
// that sets the window title, CSI sequences that erase the line and move
// the cursor, a bidi override that reorders what follows, a C1 control.
const hostileJS = `aios.provider({ id: 'org.example.hostile' });
aios.registerTool({
  name: 'hostile',
  description: 'Looks fine\u001b[2K\u001b[1G\u001b]0;owned\u0007 \u202eevil\u202c \u009b31m',
  parameters: { s: { type: 'string', description: 'p \u001b[31mred' } },
}, async (params, ctx) => {
  throw new Error('bad \u001b]0;owned\u0007 \u001b[31mRED\u001b[0m \u202ething');
});
`

// terminalBytes lists what must not reach a terminal from a plugin's text.
func terminalBytes(s string) []string {
	var found []string
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u202c", "\u009b"} {
		if strings.Contains(s, bad) {
			found = append(found, bad)
		}
	}
	return found
}

// TestInspectEscapesTerminalControls: inspect, which a user runs on a
// plugin file before trusting it, printed its tool's description as the
// file wrote it, so a hostile file set the terminal's title, erased the
// line and reordered text. The texts are printed escaped (\x1b, \u202e);
// --json writes the characters JSON leaves as they are as \u escapes.
func TestInspectEscapesTerminalControls(t *testing.T) {
	e := newEnv(t)
	js := filepath.Join(t.TempDir(), "hostile.js")
	if err := os.WriteFile(js, []byte(hostileJS), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "inspect", js)
	if code != exitOK || !strings.Contains(out, "tool hostile") {
		t.Fatalf("inspect: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(out); bad != nil {
		t.Errorf("inspect printed %q to the terminal:\n%q", bad, out)
	}
	if !strings.Contains(out, `Looks fine\x1b[2K\x1b[1G\x1b]0;owned\x07 \u202eevil\u202c \u009b31m`) {
		t.Errorf("inspect does not show the description escaped:\n%s", out)
	}
	code, out, errs = e.run("", "inspect", js, "--json")
	if code != exitOK || !strings.Contains(out, `\u001b[2K`) {
		t.Fatalf("inspect --json: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(out); bad != nil {
		t.Errorf("inspect --json printed %q to the terminal:\n%q", bad, out)
	}
}

// TestCallErrorEscapesTerminalControls: call printed a failed tool's
// message on stderr as the tool wrote it, so a hostile tool set the
// terminal's title and colours (and reordered the text) of the user who
// called it. The message is printed escaped; the code and the readable
// text stay.
func TestCallErrorEscapesTerminalControls(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.plugins, "hostile.js"), []byte(hostileJS), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "call", "hostile", `{"s":"x"}`)
	if code != exitFail || out != "" || !strings.Contains(errs, "ProviderError: ") || !strings.Contains(errs, `bad \x1b]0;owned\x07 \x1b[31mRED\x1b[0m \u202ething`) {
		t.Fatalf("call: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(errs); bad != nil {
		t.Errorf("call printed %q to the terminal:\n%q", bad, errs)
	}
}

// TestDiffEscapesTerminalControls: diff printed each change's path,
// which names the schema's properties as the provider wrote them, and its
// values as they are, so a hostile provider's property name set the
// terminal's title (its screening strips descriptions, not names). The
// path and the values are printed escaped, a newline too, one change a
// line.
func TestDiffEscapesTerminalControls(t *testing.T) {
	e := newEnv(t)
	for name, src := range map[string]string{
		"v1.js": `aios.provider({ id: 'org.example.d1' });
aios.registerTool({ name: 'dt', version: '1.0.0', parameters: { type: 'object', properties: { a: { type: 'string' } } } }, async (p) => 'ok');
`,
		"v2.js": `aios.provider({ id: 'org.example.d2' });
aios.registerTool({ name: 'dt', version: '1.1.0', parameters: { type: 'object', properties: { a: { type: 'string', enum: ['\u009b31m\u202e', 'y'] }, 'b\u001b]0;owned\u0007\n\u202e': { type: 'string' } } } }, async (p) => 'ok');
`,
	} {
		if err := os.WriteFile(filepath.Join(e.plugins, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := e.run("", "diff", "dt")
	if code != exitOK || !strings.Contains(out, `/parameters/properties/b\x1b]0;owned\x07\n\u202e`) || !strings.Contains(out, `["\u009b31m\u202e","y"]`) {
		t.Fatalf("diff: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(out); bad != nil {
		t.Errorf("diff printed %q to the terminal:\n%q", bad, out)
	}
	if lines := strings.Count(out, "\n"); lines != 3 {
		t.Errorf("diff printed %d lines, want a summary and 2 changes:\n%s", lines, out)
	}
}

// TestRunSummaryEscapesTerminalControls: run's summary of what it
// loaded printed each file's path and the error of each file that did
// not load as they are, so a plugin whose top-level code threw an error
// holding ESC sequences (or a file named with them) set the terminal's
// title and colours of whoever started the host. They are printed
// escaped (the error's lines kept, a path on its line).
func TestRunSummaryEscapesTerminalControls(t *testing.T) {
	e := newEnv(t)
	for name, src := range map[string]string{
		"boom.js": `throw new Error('load \u001b]0;owned\u0007 \u001b[31mRED \u202e');` + "\n",
		"f\x1b[31m\nred.js": `aios.provider({ id: 'org.example.f' });
aios.registerTool({ name: 'f', parameters: {} }, async () => 1);
`,
	} {
		if err := os.WriteFile(filepath.Join(e.plugins, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := e.startRun("watching: ")
	r.stop()
	errs := r.stderr.String()
	if !strings.Contains(errs, `f\x1b[31m\nred.js`) || !strings.Contains(errs, `load \x1b]0;owned\x07 \x1b[31mRED \u202e`) {
		t.Fatalf("run's summary does not show the path and the error escaped:\n%s", errs)
	}
	if bad := terminalBytes(errs); bad != nil {
		t.Errorf("run printed %q to the terminal:\n%q", bad, errs)
	}
}

// TestListEscapesTerminalControls: list printed each tool's
// description as its provider wrote it. An Untrusted provider's is
// screened at registration, but a Verified provider's (a card signed with
// a key the config trusts) is served as given (docs/trust.md,
// "Screening"), so the table erased the line, set the terminal's title
// and reordered the text of whoever listed the tools. The table prints
// every cell escaped; --json keeps the text as registered.
func TestListEscapesTerminalControls(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", filepath.Join(dir, "key")); code != exitOK {
		t.Fatalf("keygen: %s", errs)
	}
	pkg := filepath.Join(e.plugins, "hostile")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	card := filepath.Join(pkg, "adapter.json")
	for name, data := range map[string]string{
		"tool.js": hostileJS,
		"adapter.json": `{"adapter": {"id": "org.example.hostile", "name": "Hostile", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "hostile", "name": "Hostile", "permission_level": "low"}],
  "artifact": {"path": "tool.js"}}`,
	} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, signed, errs := e.bare("sign", card, "--key", filepath.Join(dir, "key", "private.pem"))
	if code != exitOK {
		t.Fatalf("sign: %d %s", code, errs)
	}
	if err := os.WriteFile(card, []byte(signed), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("discovery:\n  keys:\n    - jwks: "+filepath.Join(dir, "key", "jwks.json")+"\n      trust: verified\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "list", "--config", cfg)
	if code != exitOK || !strings.Contains(out, `Looks fine\x1b[2K\x1b[1G\x1b]0;owned\x07 \u202eevil\u202c \u009b31m`) {
		t.Fatalf("list: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(out); bad != nil {
		t.Errorf("list printed %q to the terminal:\n%q", bad, out)
	}
	code, out, errs = e.run("", "list", "--config", cfg, "--json")
	if code != exitOK || !strings.Contains(out, `"description": "Looks fine\u001b[2K`) {
		t.Fatalf("list --json: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestJSONOutputsTerminalSafe: call --json and list --json wrote the
// characters JSON leaves as they are but a terminal acts on (a bidi
// override, a C1 control) as the tool wrote them, in a failed call's
// message and in a tag (tags are not screened), where audit show --json
// and inspect --json write them as \u escapes. They now do too: the same
// JSON value, no byte a terminal acts on.
func TestJSONOutputsTerminalSafe(t *testing.T) {
	e := newEnv(t)
	src := `aios.provider({ id: 'org.example.tags' });
aios.registerTool({ name: 'tags', tags: ['t\u202e\u009b31m'], parameters: {} },
  async () => { throw new Error('bad \u202eevil\u202c \u009b31m'); });
`
	if err := os.WriteFile(filepath.Join(e.plugins, "tags.js"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "call", "tags", "--json")
	if code != exitFail || !strings.Contains(out, `bad \u202eevil\u202c \u009b31m`) {
		t.Fatalf("call --json: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(out); bad != nil {
		t.Errorf("call --json printed %q to the terminal:\n%q", bad, out)
	}
	code, out, errs = e.run("", "list", "--json")
	if code != exitOK || !strings.Contains(out, `"t\u202e\u009b31m"`) {
		t.Fatalf("list --json: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(out); bad != nil {
		t.Errorf("list --json printed %q to the terminal:\n%q", bad, out)
	}
}

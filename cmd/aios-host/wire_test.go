package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunWireFlag: `run --wire json --log-level debug` makes the JS and
// Python worker processes speak JSON and logs their frames; a bad value
// is a usage error.
func TestRunWireFlag(t *testing.T) {
	if code, _, errs := newEnv(t).run("", "run", "--wire", "xml"); code != exitUsage || !strings.Contains(errs, `--wire "xml": want msgpack or json`) {
		t.Fatalf("run --wire xml: %d %q", code, errs)
	}
	for _, c := range []struct{ flag, want string }{{"json", "format=json"}, {"", "format=msgpack"}} {
		t.Run("wire="+c.flag, func(t *testing.T) {
			e := newEnv(t)
			files := map[string]string{
				"words.py": "from aios_sdk import tool\n@tool(name='py-words', parameters={'type': 'object'})\ndef words(params):\n    return {'n': 1}\n",
				"words.js": "aios.registerTool({name: 'js-words', parameters: {type: 'object'}}, () => ({n: 1}));\n",
			}
			for name, src := range files {
				if err := os.WriteFile(filepath.Join(e.plugins, name), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"--log-level", "debug"}
			if c.flag != "" {
				args = append(args, "--wire", c.flag)
			}
			r := e.startRun("aios-host serving", args...)
			r.stop()
			log := r.stderr.String()
			for _, want := range []string{`msg="wire frame" runtime=python`, `msg="wire frame" runtime=js`, c.want, `kind\":\"register`} {
				if c.flag == "" && want == `kind\":\"register` {
					continue // MessagePack frames are logged in hex
				}
				if !strings.Contains(log, want) {
					t.Fatalf("no %q in the log:\n%s", want, log)
				}
			}
			if c.flag == "json" && strings.Contains(log, "format=msgpack") {
				t.Fatalf("a worker spoke msgpack under --wire json:\n%s", log)
			}
		})
	}
}

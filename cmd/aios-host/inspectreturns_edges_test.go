package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectTextShowsOutputSchema: `aios-host inspect words.py` printed
// each tool's input schema only, though the SDK had made an output schema
// of the tool's returns= shorthand (which properties a result must have)
// and --json printed it: a tool author reading the text saw no trace of
// it. The text form prints it after the input schema, as it does a
// component's return schema.
func TestInspectTextShowsOutputSchema(t *testing.T) {
	e := newEnv(t)
	py := filepath.Join(t.TempDir(), "words.py")
	if err := os.WriteFile(py, []byte(`from aios_sdk import tool

@tool(name="word-count", parameters={"text": {"type": "string"}}, returns={"words": {"type": "integer"}})
def word_count(params):
    return {"words": len(params["text"].split())}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "inspect", py)
	if code != exitOK || !strings.Contains(out, "tool word-count") || !strings.Contains(out, "input schema: {") {
		t.Fatalf("inspect words.py: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	i := strings.Index(out, "output schema: {")
	if i < 0 || !strings.Contains(out[i:], `"words"`) || !strings.Contains(out[i:], `"integer"`) {
		t.Fatalf("inspect words.py printed no output schema with the words property: %q", out)
	}
}

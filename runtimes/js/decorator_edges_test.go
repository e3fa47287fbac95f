package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestToolOptionsNotObjectNamed: @tool('summarize') — the name given
// first, as Python's @tool takes it — failed the load with 'unknown member
// "0" in the tool definition' (the string spread into the definition a
// character a member), and @tool(['a']) the same. The decorator now says
// it takes one options object, showing how to give the name, at its line.
func TestToolOptionsNotObjectNamed(t *testing.T) {
	rt := newRuntime(t, Options{})
	for name, c := range map[string]struct{ deco, want string }{
		"string.ts": {"@tool('summarize')", `@tool takes its options as one object, @tool({ name: "summarize", parameters: {…} }) (or nothing: the name is the method's), got the string "summarize"`},
		"array.ts":  {"@tool(['a'] as any)", "got an array"},
		"number.ts": {"@tool(5 as any)", "got a number"},
	} {
		path := writeSource(t, name, "import { Agent, tool } from 'aios-sdk';\n@Agent({ name: 'A' })\nclass A {\n  "+c.deco+" a() { return 1; }\n}\n")
		_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
		if err == nil || !strings.Contains(err.Error(), "TypeError: @tool takes its options as one object") || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "(at "+name+":4:") || strings.Contains(err.Error(), `member "0"`) {
			t.Errorf("%s: %v\nwant %q at line 4", name, err, c.want)
		}
	}
}

// TestToolOnAccessorSameInBothModes: @tool over a getter or a field is
// refused in standard decorators as "@tool decorates public instance
// methods, not a getter"; with experimentalDecorators it said "@tool A.a
// a: the handler is not a function" after running the getter on the
// class's prototype. Both modes now give the standard mode's words, and
// the getter is not run.
func TestToolOnAccessorSameInBothModes(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, mode := range []string{"standard", "experimental"} {
		for member, want := range map[string]string{
			"get a() { ran(); return 1; }": "not a getter",
			"set a(v) { ran(); }":          "not a setter",
			"a = () => 1;":                 "not a field",
		} {
			if mode == "standard" && strings.HasPrefix(member, "set") {
				want = "not a setter"
			}
			src := "// @aios-decorators " + mode + "\nimport { Agent, tool } from 'aios-sdk';\nfunction ran() { throw new Error('the getter ran'); }\n@Agent({ name: 'A' })\nclass A {\n  @tool({ name: 'a' }) " + member + "\n}\n"
			path := writeSource(t, "acc.ts", src)
			_, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeTS)
			if err == nil || !strings.Contains(err.Error(), "TypeError: @tool decorates public instance methods, "+want) || strings.Contains(err.Error(), "getter ran") {
				t.Errorf("%s %q: %v\nwant %q", mode, member, err, want)
			}
		}
	}
}

package js

import (
	"testing"
	"time"
)

// TestDecoratorPragmaAfterBOM: a file saved with a byte order mark (as
// Windows editors save UTF-8) whose first line is "// @aios-decorators
// experimental" was compiled with standard decorators: the pragma's
// pattern wants "//" at the start of a line, and the mark stood before it.
// The provider's own experimental decorator was then called as a
// standard one, (method, context), without a word. The mark is not part of
// the line: the pragma is honoured, with CRLF line ends too.
func TestDecoratorPragmaAfterBOM(t *testing.T) {
	rt := newRuntime(t, Options{})
	body := "let seen = '';\n" +
		"function logged(target: any, key: any, desc?: any): any { seen = typeof key; }\n" +
		"class K { @logged m() { return seen; } }\n" +
		"aios.provider({ id: 'org.test.bom' });\n" +
		"aios.registerTool({ name: 't', parameters: {} }, () => new K().m());\n"
	for name, c := range map[string]struct{ src, want string }{
		"bom-experimental.ts":   {"\uFEFF// @aios-decorators experimental\n" + body, "string"},
		"bom-standard.ts":       {"\uFEFF// @aios-decorators standard\n" + body, "object"},
		"bom-crlf.ts":           {"\uFEFF// @aios-decorators experimental\r\n" + body, "string"},
		"plain-experimental.ts": {"// @aios-decorators experimental\n" + body, "string"},
	} {
		p := loadSource(t, rt, name, c.src)
		got, err := call(t, p, newFakeEnv(), "t", map[string]any{}, 30*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != c.want {
			t.Errorf("%s: the decorator's second argument was a %v, want a %s (the key with experimental decorators, the context with standard ones)", name, got, c.want)
		}
	}
}

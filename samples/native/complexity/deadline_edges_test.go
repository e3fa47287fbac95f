package complexity

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// analyze-complexity never looked at its ctx: given an object of
// hundreds of megabytes (limits.max_object_bytes is 256 MiB) it stripped,
// tokenized and counted all of it past the call's deadline, holding its
// caller (a native handler runs on the caller's goroutine) and its
// memory, to have the result thrown away. It now stops at the deadline:
// Timeout, no result.
func TestAnalyzeStopsAtDeadline(t *testing.T) {
	py := []byte(strings.Repeat("if a and b:\n    x = 'if'  # or\n", 1<<16))
	gosrc := []byte("package p\n\nfunc f() {\n" + strings.Repeat("\tif a && b {\n\t}\n", 1<<14) + "}\n")
	env := &fakeEnv{objects: map[string][]byte{"sha256:py": py, "sha256:go": gosrc}}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	p := New()
	for _, lang := range []string{"python", "rust", "typescript", "go"} {
		id := "sha256:py"
		if lang == "go" {
			id = "sha256:go"
		}
		res, err := p.Call(ctx, &abi.ToolCall{Tool: ToolName, Params: map[string]any{"object_id": id, "language": lang}}, env)
		if abi.CodeOf(err) != abi.Timeout || res != nil {
			t.Errorf("%s past the deadline: result %.80v, err %v; want Timeout", lang, res, err)
		}
	}
}

package panicstack

import (
	"strings"
	"testing"
)

func TestFramePath(t *testing.T) {
	cases := []struct{ fn, file, want string }{
		{"example.com/tools.Resize", "/home/ann/src/tools/resize.go", "example.com/tools/resize.go"},
		{"example.com/tools.(*T).Run[...]", "/home/ann/src/tools/t.go", "example.com/tools/t.go"},
		{"example.com/a.F[example.com/b/c.T]", "/x/a/f.go", "example.com/a/f.go"},
		{"main.main", "/home/ann/cmd/main.go", "main.go"},
		{"example.com/tools.Resize", `C:\Users\ann\tools\resize.go`, "example.com/tools/resize.go"},
		{"example.com/tools.Resize", "example.com/tools/resize.go", "example.com/tools/resize.go"},
		{"nodot", "/abs/file.go", "file.go"},
	}
	for _, c := range cases {
		if got := FramePath(c.fn, c.file); got != c.want {
			t.Errorf("FramePath(%q, %q) = %q, want %q", c.fn, c.file, got, c.want)
		}
	}
}

//go:noinline
func panicker() { panic("boom") }

//go:noinline
func caller() { panicker() }

func stackOf(own func(string) (bool, bool)) (stack string) {
	defer func() {
		recover()
		stack = Format(1, own)
	}()
	caller()
	return ""
}

func TestFormat(t *testing.T) {
	stack := stackOf(func(string) (bool, bool) { return false, false })
	if !strings.HasPrefix(stack, "github.com/aios-host/aios-host/internal/panicstack.panicker\n\tgithub.com/aios-host/aios-host/internal/panicstack/panicstack_test.go:") {
		t.Fatalf("the stack does not start at the panicking function:\n%s", stack)
	}
	if strings.Contains(stack, "runtime.") || strings.Contains(stack, "/usr/") {
		t.Fatalf("the stack names runtime frames or a host path:\n%s", stack)
	}
	if n := strings.Count(stack, "\n\t"); n > MaxFrames {
		t.Fatalf("%d frames, want at most %d", n, MaxFrames)
	}
	stopped := stackOf(func(fn string) (bool, bool) {
		return strings.HasSuffix(fn, ".panicker"), strings.HasSuffix(fn, ".stackOf")
	})
	if strings.Contains(stopped, ".panicker\n") || !strings.Contains(stopped, ".caller\n") || strings.Contains(stopped, "stackOf") || strings.Contains(stopped, "testing.") {
		t.Fatalf("skip and stop were not applied:\n%s", stopped)
	}
}

package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/samples/native/complexity"
)

// TestReadmeQuickTourComplexity: README's quick tour shows the result of
// analyze-complexity on cmd/aios-host/main.go, but it quoted 12 for
// (*cli).dispatch and for the file where the tool answers 13 (dispatch grew a
// branch), so a newcomer following it saw other figures than the README's.
// The figures the README quotes are now those of main.go as it is.
func TestReadmeQuickTourComplexity(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	fns, err := complexity.GoFunctions(src)
	if err != nil {
		t.Fatal(err)
	}
	rep := complexity.Summarize(fns, "")
	want := map[string]int{}
	for _, f := range fns {
		want[f.Name] = f.Complexity
	}

	// The quick tour's output: from the call on main.go to the next prompt.
	text := string(readme)
	start := strings.Index(text, `call analyze-complexity "{\"object_id\": \"$id\"`)
	if start < 0 {
		t.Fatal("README: the quick tour's analyze-complexity call on main.go not found")
	}
	out := text[start:]
	out = out[:strings.Index(out, "    $ ")]

	top := regexp.MustCompile(`(?m)^      "complexity": (\d+),$`).FindStringSubmatch(out)
	if top == nil {
		t.Fatal("README: the quick tour shows no top-level complexity")
	}
	if n, _ := strconv.Atoi(top[1]); n != rep.Complexity {
		t.Errorf("README quotes \"complexity\": %d for main.go; analyze-complexity answers %d", n, rep.Complexity)
	}
	if !strings.Contains(out, `"rating": "`+rep.Rating+`"`) {
		t.Errorf("README's quick tour does not show the rating %q", rep.Rating)
	}
	fn := regexp.MustCompile(`"complexity": (\d+),\s+"name": "([^"]+)"`)
	matches := fn.FindAllStringSubmatch(out, -1)
	if len(matches) == 0 {
		t.Fatal("README: the quick tour shows no function")
	}
	for _, m := range matches {
		n, _ := strconv.Atoi(m[1])
		got, ok := want[m[2]]
		if !ok {
			t.Errorf("README shows function %s, which main.go does not have", m[2])
		} else if n != got {
			t.Errorf("README quotes complexity %d for %s; analyze-complexity answers %d", n, m[2], got)
		}
	}
}

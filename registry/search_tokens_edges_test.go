package registry

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestSearchManyDistinctTokens: Search told repeated tokens apart by
// scanning the tokens kept so far for each one, quadratic in the query's
// words: 50 000 distinct words took 5 s, 200 000 over a minute, against a
// registry of one tool. Now it is linear: 200 000 words take milliseconds
// (the bound leaves room for a loaded machine), and a word repeated still
// counts once.
func TestSearchManyDistinctTokens(t *testing.T) {
	r := New()
	if err := r.Register(prov("org.x.a"), []abi.ToolDef{tool("echo", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&b, "w%d ", i)
	}
	start := time.Now()
	if got := r.Search(Query{Text: b.String()}); len(got) != 0 {
		t.Errorf("found %d tools for words none has", len(got))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a query of 200 000 distinct words took %v", d)
	}
	// A repeated word still counts once: the same answer as the word alone.
	one := r.Search(Query{Text: "echo"})
	many := r.Search(Query{Text: strings.Repeat("echo ECHO ", 1000)})
	if len(one) != 1 || len(many) != 1 || one[0] != many[0] {
		t.Fatalf("echo: %v; repeated: %v", one, many)
	}
}

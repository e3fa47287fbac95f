package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestConflictNamesFile: two plugin files registering the same tool
// name: the second's load failed "conflicts with the same tool version
// already registered by provider org.example.a", and the log named the
// second file only; an author who copied a.js to b.js had to find which
// file holds org.example.a. The message now names its source and what to
// change.
func TestConflictNamesFile(t *testing.T) {
	r := New()
	a := prov("org.example.a")
	a.Source = "/home/me/plugins/a.js"
	if err := r.Register(a, []abi.ToolDef{tool("same", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	b := prov("org.example.b")
	b.Source = "/home/me/plugins/b.js"
	err := r.Register(b, []abi.ToolDef{tool("same", "1.0.0")})
	wantCode(t, err, abi.Conflict, "org.example.a (from /home/me/plugins/a.js)", "another name or version")
}

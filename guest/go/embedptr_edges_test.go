package aios

import (
	"strings"
	"testing"
)

type embedPtrInner struct {
	X int64 `json:"x"`
}

type embedPtrHidden struct {
	n int
}

// TestEmbeddedPointerToUnexportedStruct: a params struct embedding a
// pointer to an unexported struct (struct{ *inner; … }) passed
// HandleFunc's check, but encoding/json cannot set such a pointer: every
// call sending one of inner's fields failed as the caller's InvalidParams
// ("params do not fit …: json: cannot set embedded pointer to unexported
// struct"), though the caller's params were right and the tool was wrong.
// HandleFunc now panics at registration, naming the tool and the field;
// the same struct embedded by value, an embedded pointer to a struct
// with no JSON fields, and the same type as a result (encoding/json
// writes it) still register.
func TestEmbeddedPointerToUnexportedStruct(t *testing.T) {
	type In struct {
		*embedPtrInner
		Name string `json:"name"`
	}
	got := registerPanic(t, "probe-embedptr", func() {
		HandleFunc(Tool{Name: "probe-embedptr"}, func(c *Call, in In) (map[string]any, error) {
			return map[string]any{"x": in.X}, nil
		})
	})
	for _, want := range []string{"probe-embedptr", "*aios.embedPtrInner", "embed it by value"} {
		if !strings.Contains(got, want) {
			t.Fatalf("HandleFunc did not refuse the params type naming %q: panic %q", want, got)
		}
	}

	type ByValue struct {
		embedPtrInner
		Name string `json:"name"`
	}
	type Hidden struct {
		*embedPtrHidden
		Name string `json:"name"`
	}
	if got := registerPanic(t, "probe-embedval", func() {
		HandleFunc(Tool{Name: "probe-embedval"}, func(c *Call, in ByValue) (In, error) {
			return In{embedPtrInner: &embedPtrInner{X: in.X}, Name: in.Name}, nil
		})
	}); got != "" {
		t.Fatalf("a params type embedding the struct by value was refused: %s", got)
	}
	if got := registerPanic(t, "probe-embedhidden", func() {
		HandleFunc(Tool{Name: "probe-embedhidden"}, func(c *Call, in Hidden) (string, error) { return in.Name, nil })
	}); got != "" {
		t.Fatalf("a params type embedding a pointer to a struct without JSON fields was refused: %s", got)
	}
	probeTool(t, "probe-embedval", func() {
		HandleFunc(Tool{Name: "probe-embedval"}, func(c *Call, in ByValue) (In, error) {
			return In{embedPtrInner: &embedPtrInner{X: in.X}, Name: in.Name}, nil
		})
	})
	v, terr := serveResult(t, "probe-embedval", map[string]any{"x": int64(7), "name": "n"})
	if terr != nil {
		t.Fatalf("probe-embedval: %+v", terr)
	}
	if m, _ := v.(map[string]any); m["x"] != int64(7) || m["name"] != "n" {
		t.Fatalf("probe-embedval returned %#v, want x 7 and name n", v)
	}
}

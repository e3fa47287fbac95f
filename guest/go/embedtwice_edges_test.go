package aios

import (
	"encoding/json"
	"strings"
	"testing"
)

type twiceLeaf struct {
	X int64 `json:"x"`
}
type twiceA struct{ twiceLeaf }
type twiceB struct{ twiceLeaf }

// twiceBoth embeds twiceLeaf twice, through twiceA and twiceB, at one depth.
type twiceBoth struct {
	twiceA
	twiceB
	Name string `json:"name"`
}

// TestStructEmbeddedTwiceHasNoField: a struct embedding the same struct
// twice at one depth (twiceA and twiceB each embed twiceLeaf) has no field
// "x" for encoding/json, which finds two at that depth and drops both: it
// neither reads "x" from the params nor writes it in the result. The
// registration check listed the embedded type once (each type visited
// once) and took twiceLeaf.X for "x": a tool whose Parameters require "x"
// loaded, and every call's handler got x = 0; one whose Returns require
// "x" loaded, and the host refused every result. Both panic at
// registration now, as for a type with no field for a required property.
func TestStructEmbeddedTwiceHasNoField(t *testing.T) {
	b, _ := json.Marshal(twiceBoth{twiceA{twiceLeaf{1}}, twiceB{twiceLeaf{2}}, "n"})
	if strings.Contains(string(b), `"x"`) {
		t.Fatalf("encoding/json wrote %s: the premise of this test is wrong", b)
	}
	req := Schema(`{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}`)
	if got := registerPanic(t, "probe-twice-in", func() {
		HandleFunc(Tool{Name: "probe-twice-in", Parameters: req}, func(c *Call, in twiceBoth) (any, error) { return in.twiceA.X, nil })
	}); !strings.Contains(got, `requires "x"`) {
		t.Errorf("params: %q, want a panic saying the type has no field for the required \"x\"", got)
	}
	if got := registerPanic(t, "probe-twice-out", func() {
		HandleFunc(Tool{Name: "probe-twice-out", Returns: req}, func(c *Call, in map[string]any) (twiceBoth, error) { return twiceBoth{}, nil })
	}); !strings.Contains(got, `requires "x"`) {
		t.Errorf("result: %q, want a panic saying the type has no field written as the required \"x\"", got)
	}
	// Its own fields are still found.
	if got := registerPanic(t, "probe-twice-name", func() {
		HandleFunc(Tool{Name: "probe-twice-name", Parameters: Schema(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
			func(c *Call, in twiceBoth) (any, error) { return in.Name, nil })
	}); got != "" {
		t.Errorf("a valid params type was refused: %s", got)
	}
}

package aios

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestTypedResultMapOfGoValues: HandleFunc says its result is encoded
// with encoding/json rules, and a native Go tool's result (runtimes/native
// Typed) is; but a typed handler returning a map[string]any or []any (the
// "skip conversion" types) holding Go values — a []Item, a time.Time, an
// int32, a []byte — got InvalidResult "items: wire: value is not a
// canonical generic value: a Go []aios.item". Such a result now goes by
// encoding/json's rules as any other typed result; NaN inside it is still
// InvalidResult naming the tool, and a generic (Handle) handler's result is
// still held to generic values.
func TestTypedResultMapOfGoValues(t *testing.T) {
	type item struct {
		Name string `json:"name"`
		N    int32  `json:"n,omitempty"`
	}
	at := time.Date(2026, 12, 4, 10, 0, 0, 5, time.UTC)
	probeTool(t, "probe-typed-map", func() {
		HandleFunc(Tool{Name: "probe-typed-map"}, func(c *Call, in map[string]any) (map[string]any, error) {
			return map[string]any{
				"items": []item{{Name: "a", N: 2}, {Name: "b"}},
				"at":    at,
				"count": int32(2),
				"png":   []byte("ab"),
				"ptr":   &item{Name: "p"},
				"big":   uint64(1<<64 - 1),
			}, nil
		})
	})
	probeTool(t, "probe-typed-any-list", func() {
		HandleFunc(Tool{Name: "probe-typed-any-list"}, func(c *Call, in map[string]any) (any, error) {
			return []any{item{Name: "x"}, float32(0.5), map[string]int{"k": 1}}, nil
		})
	})
	v, terr := serveResult(t, "probe-typed-map", nil)
	if terr != nil {
		t.Fatalf("typed map result: %+v", terr)
	}
	want := map[string]any{
		"items": []any{map[string]any{"name": "a", "n": int64(2)}, map[string]any{"name": "b"}},
		"at":    "2026-12-04T10:00:00.000000005Z",
		"count": int64(2),
		"png":   "YWI=",
		"ptr":   map[string]any{"name": "p"},
		"big":   uint64(1<<64 - 1),
	}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("got\n %#v\nwant\n %#v", v, want)
	}
	v, terr = serveResult(t, "probe-typed-any-list", nil)
	if want := []any{map[string]any{"name": "x"}, 0.5, map[string]any{"k": int64(1)}}; terr != nil || !reflect.DeepEqual(v, want) {
		t.Fatalf("typed []any result: %#v %+v, want %#v", v, terr, want)
	}

	// Still refused: NaN inside (encoding/json refuses it too), naming
	// the tool; and a generic handler's Go values (docs/abi.md).
	probeTool(t, "probe-typed-map-nan", func() {
		HandleFunc(Tool{Name: "probe-typed-map-nan"}, func(c *Call, in map[string]any) (map[string]any, error) {
			zero := 0.0
			return map[string]any{"items": []item{{Name: "a"}}, "f": zero / zero}, nil
		})
	})
	if _, terr = serveResult(t, "probe-typed-map-nan", nil); terr == nil || terr.Code != InvalidResult || !strings.Contains(terr.Message, "probe-typed-map-nan") || !strings.Contains(terr.Message, "NaN") {
		t.Fatalf("NaN in a typed map result: %+v, want InvalidResult naming the tool and NaN", terr)
	}
	probeTool(t, "probe-generic-goval", func() {
		Handle(Tool{Name: "probe-generic-goval"}, func(c *Call, p any) (any, error) {
			return map[string]any{"img": []byte("ab")}, nil
		})
	})
	if _, terr = serveResult(t, "probe-generic-goval", nil); terr == nil || terr.Code != InvalidResult || !strings.Contains(terr.Message, "img: ") {
		t.Fatalf("a generic handler's []byte: %+v, want InvalidResult naming img", terr)
	}
}

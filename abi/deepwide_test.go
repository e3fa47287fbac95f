package abi

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// deepWide is an object of width members, under depth objects each of one
// member named by keyLen letters.
func deepWide(depth, width, keyLen int) any {
	bottom := map[string]any{}
	for i := range width {
		bottom[fmt.Sprint("m", i)] = int64(i)
	}
	var v any = bottom
	k := strings.Repeat("k", keyLen)
	for range depth {
		v = map[string]any{k: v}
	}
	return v
}

// TestNormalizeDeepWideMemory: Normalize made the path of each value it
// went through (for its errors) as its parent's path plus its own step,
// so each member of a wide object deep in a value had a copy of the
// whole path: 10 000 members 400 levels down under keys of 100 letters,
// a value of 180 KB, allocated 418 MB (and took 1.6 s). Paths are made
// into text only for an error now; one still names the whole path.
func TestNormalizeDeepWideMemory(t *testing.T) {
	v := deepWide(400, 10000, 100)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := NormalizeWithin(v, 1<<30); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16*uint64(len(b)) {
		t.Errorf("normalizing a value of %d bytes of JSON allocated %d bytes", len(b), got)
	}

	bad := deepWide(3, 2, 1)
	bad.(map[string]any)["k"].(map[string]any)["k"].(map[string]any)["a b"] = []any{int64(1), "\xff"}
	_, err = Normalize(bad)
	if err == nil || !strings.HasPrefix(err.Error(), `$.k.k["a b"][1]: a string that is not valid UTF-8`) {
		t.Errorf("the error does not name the path $.k.k[\"a b\"][1]: %v", err)
	}
}

package registry

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestLeakConstraintCaches: callers choose version constraints
// (ToolCall.Version, from any JSON-RPC or MCP client); the resolution memo
// and the parsed-constraint cache are bounded in entries (maxMemo,
// maxCachedConstraints) and Masterminds refuses constraints past 512
// bytes, so distinct long constraints, call after call, hold a few MiB at
// most.
func TestLeakConstraintCaches(t *testing.T) {
	r := New()
	if err := r.Register(prov("org.test.p"), []abi.ToolDef{tool("t", "1.2.3")}); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	// Masterminds refuses constraints past 512 bytes: the longest it takes.
	pad := strings.Repeat(" ", 480)
	const n = 4500 // past maxMemo
	for i := 0; i < n; i++ {
		c := fmt.Sprintf(">=1.0.%d%s, <%d.0.0", i%2, pad, 2+i)
		if _, err := r.Resolve("t", c); err != nil {
			t.Fatalf("constraint %d: %v", i, err)
		}
	}
	grew := int64(heap()) - int64(before)
	s := r.snap.Load()
	s.memo.mu.RLock()
	memoLen := len(s.memo.m)
	s.memo.mu.RUnlock()
	r.cons.mu.Lock()
	consLen := len(r.cons.m)
	r.cons.mu.Unlock()
	t.Logf("memo %d entries, parsed constraints %d", memoLen, consLen)
	if memoLen > maxMemo || consLen > maxCachedConstraints {
		t.Errorf("memo %d entries (bound %d), parsed constraints %d (bound %d)", memoLen, maxMemo, consLen, maxCachedConstraints)
	}
	t.Logf("heap grew %d KiB after %d resolutions of distinct 500-byte constraints", grew>>10, n)
	// maxMemo (4096) × ~0.5 KiB + maxCachedConstraints (256) parsed.
	if grew > 8<<20 {
		t.Errorf("the resolution caches hold %d MiB after %d distinct constraints", grew>>20, n)
	}
}

package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSemverDiffsOutsideLock: the schema diffs of the SemVer check are
// computed before Apply takes the write lock (another registration goes
// through meanwhile), reused under the lock when the versions compared did
// not change, and computed again when they did.
func TestSemverDiffsOutsideLock(t *testing.T) {
	r := New()
	if err := r.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.0.0", propsA, "a")}); err != nil {
		t.Fatal(err)
	}
	locked := func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.lockedPairs
	}

	// Nothing changes between prepare and the lock: the diff is reused.
	inHook := false
	testHookPrepared = func() {
		if inHook {
			return
		}
		inHook = true
		// The lock is free: an unrelated registration goes through.
		if err := r.Register(prov("org.other"), []abi.ToolDef{tool("other", "1.0.0")}); err != nil {
			t.Error(err)
		}
	}
	defer func() { testHookPrepared = nil }()
	n := locked()
	if err := r.Register(prov("org.b"), []abi.ToolDef{withParams("t", "1.1.0", propsAB, "a", "b")}); err != nil {
		t.Fatal(err)
	}
	if r.Provider("org.other") == nil {
		t.Fatal("the registration in the hook did not happen")
	}
	e, _ := r.Resolve("t", "1.1.0")
	if e.Violation == nil || e.Violation.Previous != "1.0.0" {
		t.Fatalf("violation %+v, want one against 1.0.0", e.Violation)
	}
	if got := locked() - n; got != 0 {
		t.Errorf("%d pairs computed under the lock, want 0 (the diff made before it reused)", got)
	}

	// A version lands between t@1.1.0's prepare and its lock: the check
	// compares with it, computed under the lock.
	r2 := New()
	if err := r2.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.0.0", propsAB, "a")}); err != nil {
		t.Fatal(err)
	}
	inHook = false
	testHookPrepared = func() {
		if inHook {
			return
		}
		inHook = true
		if err := r2.Register(prov("org.c"), []abi.ToolDef{withParams("t", "1.0.5", propsA, "a")}); err != nil {
			t.Error(err)
		}
	}
	r2.mu.Lock()
	n = r2.lockedPairs
	r2.mu.Unlock()
	// 1.1.0 adds a required parameter b: against 1.0.0 (which has b,
	// optional) and against 1.0.5 (which has no b) it breaks either way,
	// but the violation must name the version actually below it.
	if err := r2.Register(prov("org.b"), []abi.ToolDef{withParams("t", "1.1.0", propsAB, "a", "b")}); err != nil {
		t.Fatal(err)
	}
	e, _ = r2.Resolve("t", "1.1.0")
	if e.Violation == nil || e.Violation.Previous != "1.0.5" || e.Violation.PreviousProvider != "org.c" {
		t.Fatalf("violation %+v, want one against 1.0.5 of org.c", e.Violation)
	}
	r2.mu.Lock()
	defer r2.mu.Unlock()
	if r2.lockedPairs == n {
		t.Error("no pair computed under the lock although the version below changed")
	}
}

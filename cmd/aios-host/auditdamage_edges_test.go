package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestShowCallHoldsOnlyCallsInProgress: `audit show --call` read the
// log once to learn the call's tree and, for that, kept every nested
// call's parent link of the whole log in a map (430 MB of RSS to show one
// call of a 600 MB log, against 37 MB for --tool). Now a nested call is
// kept only until its top-level call has its record (callTree): after a
// log of finished calls nothing is pending, and the tree is still found
// whatever the order of the records (a grandchild before its parent, a
// nested call that ended after its parent, a call under a client's
// parent_id).
func TestShowCallHoldsOnlyCallsInProgress(t *testing.T) {
	rec := func(id, parent string) *audit.Record { return &audit.Record{CallID: id, ParentID: parent} }
	ct := newCallTree("c5-top")
	for i := range 10000 {
		top := fmt.Sprintf("c%d-top", i)
		parent := ""
		if i%2 == 1 {
			parent = "client:x"
		}
		ct.add(rec(fmt.Sprintf("c%d-leaf", i), fmt.Sprintf("c%d-mid", i)))
		ct.add(rec(fmt.Sprintf("c%d-mid", i), top))
		ct.add(rec(top, parent))
	}
	if len(ct.pending) != 0 {
		t.Fatalf("after 10000 finished calls, %d parents are still pending", len(ct.pending))
	}
	if got := slices.Sorted(maps.Keys(ct.tree)); strings.Join(got, " ") != "c5-leaf c5-mid c5-top" {
		t.Fatalf("tree of c5-top: %v", got)
	}

	for _, tc := range []struct {
		root  string
		recs  [][2]string // call, parent in log order
		wantT string
	}{
		// a nested call that outlived its parent, with its own nested call first
		{"r", [][2]string{{"a", "r"}, {"r", ""}, {"g", "late"}, {"late", "r"}, {"other", ""}}, "a g late r"},
		// the root is itself nested: its top-level call's record drops only the rest
		{"m", [][2]string{{"x", "m"}, {"s", "t"}, {"m", "t"}, {"t", ""}, {"y", "m"}}, "m x y"},
		// a client's parent_id as --call
		{"client:7", [][2]string{{"n", "a1"}, {"a1", "client:7"}, {"a2", "client:8"}}, "a1 client:7 n"},
		// a cycle in an edited log ends
		{"q", [][2]string{{"u", "v"}, {"v", "u"}, {"w", ""}, {"q", ""}}, "q"},
	} {
		ct := newCallTree(tc.root)
		for _, r := range tc.recs {
			ct.add(rec(r[0], r[1]))
		}
		if got := strings.Join(slices.Sorted(maps.Keys(ct.tree)), " "); got != tc.wantT {
			t.Errorf("--call %s over %v: tree %q, want %q", tc.root, tc.recs, got, tc.wantT)
		}
	}
}

// TestAuditVerifyNamesWhatIsThere: a folder where the log or a
// rotated file should be was reported as "not a regular file
// (d---------)", the mode's letters; it says "a folder" now, as Open does.
func TestAuditVerifyNamesWhatIsThere(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 20, 0)
	rot, _ := audit.RotatedFiles(path)
	for _, p := range []string{path, rot[0].Path} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		code, _, errs := e.run("", "audit", "verify")
		if code != exitFail || !strings.Contains(errs, p+" ") || !strings.Contains(errs, "(a folder)") {
			t.Errorf("audit verify with %s a folder: exit %d, %q", p, code, errs)
		}
		os.Remove(p)
	}
}

// TestVerifyRotationAndPruningMidRead: with audit.max_files, a
// rotation during a verify also prunes: the current file then fails (it
// now follows a file the listing did not have) and verifyLog lists the
// files again, but it kept the old --after anchor when the listing's
// oldest files had been pruned meanwhile, and failed a sound log with "seq
// is N, want M: a record before it was deleted" (30 of 40 verifies of a
// host rotating 1 MiB files, by hand). The anchor kept for the new oldest
// file is taken, as when a file is pruned before it is opened (and audit
// show, which printed records before the gap, says to run again).
func TestVerifyRotationAndPruningMidRead(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	// The current file must hold records after the rotated one, before
	// and after the rotation in the middle of the read: whether the last
	// record written rotates it away depends on how the writer batched
	// the records, and a log whose current file is empty verifies whole
	// (nothing follows the file read, and nothing was left out of it).
	writeRotatedNotEmpty(t, path, 30, 1)
	files, err := logFiles(path)
	if err != nil || len(files) != 2 {
		t.Fatalf("files %v, %v", files, err)
	}
	after, ok, err := prunedAfter(path, files)
	if err != nil || !ok {
		t.Fatalf("no pruned anchor: %v", err)
	}
	rotated, _ := audit.RotatedFiles(path)
	opts := audit.VerifyOptions{After: after}
	var seqs []uint64
	opts.Each = func(r *audit.Record, _ []byte) error {
		seqs = append(seqs, r.Seq)
		if r.Seq == rotated[0].Last {
			writeRotatedNotEmpty(t, path, 20, 1) // the host rotates and prunes meanwhile
		}
		return nil
	}
	// Records 25 to 44 went before they were read: audit show (which
	// gives opts.Each) says so and asks to run again; audit verify (no
	// Each) verifies from the kept anchor, as the loop does here.
	_, _, _, failed, err := verifyLog(files, path, opts)
	var ve *audit.VerifyError
	if err == nil || errors.As(err, &ve) || !strings.Contains(err.Error(), "were pruned (audit.max_files) while the records before them were read: run again") {
		t.Fatalf("show of a log rotated and pruned while read: %s: %v", failed, err)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("records given twice or left out: %v", seqs)
		}
	}
}

// writeRotatedNotEmpty is writeRotated, then one record more when the
// last one left the current file empty (it rotated the file away).
func writeRotatedNotEmpty(t *testing.T, path string, n, maxFiles int) {
	t.Helper()
	writeRotated(t, path, n, maxFiles)
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		writeRotated(t, path, 1, maxFiles)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("the log's current file is still empty: %v", err)
	}
}

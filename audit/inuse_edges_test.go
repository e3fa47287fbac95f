package audit

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestInUseSaidOnce: a second Open of a log another process holds (a
// newcomer's second `aios-host run` on one data folder) said "… is in use
// by another process, such as a running `aios-host run` (…); use another
// --data directory or stop it: the audit log is locked by another
// process": the cause twice, the second time after the advice. It is said
// once, before the advice, which ends the message; errors.Is still finds
// ErrInUse.
func TestInUseSaidOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, err = Open(path, Options{})
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: %v; want ErrInUse", err)
	}
	msg := err.Error()
	if strings.Count(msg, "another process") != 1 || !strings.HasPrefix(msg, "audit: "+path+" is in use by another process") || !strings.HasSuffix(msg, "use another --data directory or stop it") {
		t.Errorf("second Open: %q; want the path, the cause once, and the advice last", msg)
	}
}

package audit

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestVerifyNamesAddedTailNotACrash: a log that ends, without a newline,
// in bytes that are no record's beginning (text added by hand, another
// file's data) was said by verify to end in "incomplete last record (…):
// a crash during a write, or the log was cut", while Open refuses the same
// log because those bytes are "not what a crash during a write leaves" and
// tells the operator to check it with verify, which then blamed a crash.
// verify now says, as Open does, that the line does not begin as a
// record does, quoting its first bytes; a crash's beginning of a record is
// still named an incomplete record.
func TestVerifyNamesAddedTailNotACrash(t *testing.T) {
	path, lines := writeLog(t, 3)
	added := append(join(lines), "rotated by hand at 12:00"...)
	n, err := Verify(bytes.NewReader(added))
	var ve *VerifyError
	if n != 3 || !errors.As(err, &ve) || ve.Line != 4 {
		t.Fatalf("Verify: %d, %v", n, err)
	}
	if strings.Contains(ve.Reason, "crash during a write, or") || !strings.Contains(ve.Reason, "does not begin as a record does") || !strings.Contains(ve.Reason, `"rotated by hand at 12:00"`) {
		t.Errorf("Verify of text added at the end: %v", err)
	}
	// What Open says of it agrees.
	if err := os.WriteFile(path, added, 0o600); err != nil {
		t.Fatal(err)
	}
	if w, err := Open(path, Options{RepairTail: true}); err == nil {
		w.Close()
		t.Fatal("Open took a log ending in added text")
	} else if !strings.Contains(err.Error(), "not the beginning of a record") {
		t.Errorf("Open: %v", err)
	}
	// A crash's beginning of a record is still an incomplete record.
	cut := append(join(lines[:2]), lines[2][:40]...)
	if _, err := Verify(bytes.NewReader(cut)); err == nil || !strings.Contains(err.Error(), "incomplete last record (40 bytes, no newline): a crash during a write") {
		t.Errorf("Verify of a cut record: %v", err)
	}
}

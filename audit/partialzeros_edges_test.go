package audit

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestVerifySaysPartialRecordBeforeZerosIsPowerLoss: a power loss can
// leave the beginning of a record followed by zeros (the page after it
// was not on the disk). verify counted the zeros into the record ("incomplete
// last record (4996 bytes, no newline): a crash during a write, or the log
// was cut"), though whole records before zeros and zeros alone are named
// as a power loss's. It says how much of the record there is, how many
// zero bytes follow, and what leaves them; Open still cuts them.
func TestVerifySaysPartialRecordBeforeZerosIsPowerLoss(t *testing.T) {
	path, lines := writeLog(t, 3)
	data := append(join(lines[:2]), lines[2][:100]...)
	data = append(data, make([]byte, 4096)...)
	n, err := Verify(bytes.NewReader(data))
	var ve *VerifyError
	if n != 2 || !errors.As(err, &ve) || ve.Line != 3 || !strings.Contains(ve.Reason, "100 bytes of a record, then 4096 zero bytes") || !strings.Contains(ve.Reason, "power loss") {
		t.Fatalf("Verify: %d, %v", n, err)
	}
	// Text that is no record's beginning, then zeros: not what Open cuts.
	other := append(append(join(lines[:2]), "not a record"...), make([]byte, 64)...)
	if _, err := Verify(bytes.NewReader(other)); err == nil || strings.Contains(err.Error(), "of a record") {
		t.Fatalf("Verify of text, then zeros: %v", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, Options{RepairTail: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(9))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if n, err := Verify(bytes.NewReader(data)); err != nil || n != 3 {
		t.Fatalf("after Open and one record: %d, %v", n, err)
	}
}

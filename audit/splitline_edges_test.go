package audit

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestVerifyNamesRecordSplitAcrossLines: a record with a line break put
// into it (an editor or a mail client wrapping long lines) failed as "not
// a valid record: unexpected EOF", which names neither the line break nor
// what ended. verify says the line ends in the middle of the record.
func TestVerifyNamesRecordSplitAcrossLines(t *testing.T) {
	_, lines := writeLog(t, 3)
	split := append(append(append([]byte{}, lines[1][:80]...), '\n'), lines[1][80:]...)
	n, err := Verify(bytes.NewReader(join([][]byte{lines[0], split, lines[2]})))
	var ve *VerifyError
	if n != 1 || !errors.As(err, &ve) || ve.Line != 2 || !strings.Contains(ve.Reason, "the line ends in the middle of the record") {
		t.Fatalf("Verify: %d, %v; want line 2 to end in the middle of the record", n, err)
	}
}

package audit

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A line that holds a record from further up (a record pasted into the
// log again, or moved down) failed as "a record was inserted before it or
// records were reordered", sending the reader to the lines above it, all
// of which verified. verify names the line the record was at.
func TestVerifyNamesEarlierRecordRepeated(t *testing.T) {
	_, lines := writeLog(t, 5)
	data := join([][]byte{lines[0], lines[1], lines[2], lines[1], lines[3]})
	n, err := Verify(bytes.NewReader(data))
	var ve *VerifyError
	want := "seq is 2, want 4: this line is record 2 (line 2) again"
	if !errors.As(err, &ve) || ve.Line != 4 || n != 3 || !strings.Contains(ve.Reason, want) || strings.Contains(ve.Reason, "inserted before it") {
		t.Fatalf("Verify: %d, %v; want line 4: %s", n, err, want)
	}
	// In a file that follows another (--after), the line is counted in
	// this file.
	var after Anchor
	if _, after, err = VerifyWith(bytes.NewReader(join(lines[:2])), VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err = VerifyWith(bytes.NewReader(join([][]byte{lines[2], lines[3], lines[2]})), VerifyOptions{After: after})
	want = "seq is 3, want 5: this line is record 3 (line 1) again"
	if !errors.As(err, &ve) || ve.Line != 3 || !strings.Contains(ve.Reason, want) {
		t.Fatalf("VerifyWith --after: %v; want line 3: %s", err, want)
	}
}

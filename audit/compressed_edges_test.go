package audit

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
)

// TestVerifyNamesCompressedLog: a log compressed by logrotate (its
// compress option, on by default in many distributions' configurations)
// or by hand failed as "not a valid record: invalid character '\x1f'
// looking for beginning of value", or, when the compressed bytes held no
// newline, as "incomplete last record (… no newline): a crash during a
// write, or the log was cut", a false alarm of a crash or of tampering.
// verify names the compression and says to check the decompressed file.
func TestVerifyNamesCompressedLog(t *testing.T) {
	_, lines := writeLog(t, 3)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(join(lines))
	zw.Close()
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"gzip", gz.Bytes(), "gzip"},
		{"gzip, no newline in it", bytes.ReplaceAll(gz.Bytes(), []byte("\n"), []byte("x")), "gzip"},
		{"zstd", []byte("\x28\xb5\x2f\xfd\x00\x58\x01\x02\x03"), "zstd"},
		{"xz", []byte("\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46\n"), "xz"},
		{"bzip2", []byte("BZh91AY&SY\x01\x02\n"), "bzip2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Verify(bytes.NewReader(tc.data))
			var ve *VerifyError
			if n != 0 || !errors.As(err, &ve) || ve.Line != 1 || !strings.Contains(ve.Reason, tc.want+"-compressed") || strings.Contains(ve.Reason, "crash") {
				t.Fatalf("Verify of a %s-compressed log: %d, %v", tc.name, n, err)
			}
		})
	}
}

package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log ending with an empty line (echo >> FILE, or echo > FILE meant to
// empty it) was refused as "its last record is damaged (empty line)", of
// a log whose records all verify, or of one that holds none. It is still
// refused, left as it is, saying what the line is and how to empty a log.
func TestOpenNamesEmptyLastLine(t *testing.T) {
	_, lines := writeLog(t, 2)
	for name, data := range map[string][]byte{
		"after records": append(join(lines), '\n'),
		"echo > FILE":   []byte("\n"),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := Open(path, Options{RepairTail: true})
			if err == nil {
				w.Close()
				t.Fatal("Open took a log ending with an empty line")
			}
			if !strings.Contains(err.Error(), "ends with an empty line") || !strings.Contains(err.Error(), "truncate -s 0") || strings.Contains(err.Error(), "damaged") {
				t.Fatalf("Open: %v; want it to name the empty last line", err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
				t.Fatalf("the log was changed: %q", got)
			}
		})
	}
}

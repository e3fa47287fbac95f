package proclimit

import (
	"strings"
	"testing"
)

func TestOutputKeepsTheFirstMaxBytes(t *testing.T) {
	o := &Output{Max: 10}
	for _, s := range []string{"abc", "defghij", "klmnop"} {
		if n, err := o.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
		}
	}
	if got := o.String(); got != "abcdefghij" {
		t.Fatalf("kept %q, want the first 10 bytes", got)
	}
	if _, _ = o.Write([]byte(strings.Repeat("x", 1<<20))); o.String() != "abcdefghij" {
		t.Fatalf("kept %d bytes after a full buffer", len(o.String()))
	}
}

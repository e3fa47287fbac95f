package jsonenc

import (
	"math/rand"
	"testing"
)

// TestQuotedLenIsAppendStringLen: QuotedLen, the size the host's
// pipeline counts a string at against limits.max_params_bytes and
// max_result_bytes (it counted len(s)+2, so strings of control characters
// passed those limits at six times their JSON size: found by p117), is
// the length AppendString writes, for strings of every escape at every
// offset of the eight-byte fast path.
func TestQuotedLenIsAppendStringLen(t *testing.T) {
	alphabet := []string{"a", "\"", "\\", "\n", "\r", "\t", "\x00", "\x01", "\x1f", " ", "~", "é", "€", "😀"}
	r := rand.New(rand.NewSource(1))
	for i := range 5000 {
		s := ""
		for range r.Intn(40) {
			s += alphabet[r.Intn(len(alphabet))]
		}
		if got, want := QuotedLen(s), len(AppendString(nil, s)); got != want {
			t.Fatalf("case %d: QuotedLen(%q) = %d, AppendString writes %d bytes", i, s, got, want)
		}
	}
}

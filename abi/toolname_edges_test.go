package abi

import (
	"strings"
	"testing"
)

// TestLongToolNameClippedInError: a tool name far past the 128-character
// limit (`aios-host call "$NAME"` with a file's content in NAME, a tools/call
// from a client) was quoted whole in the error, 100 kB of it on stderr, and
// the error never said the name was too long. The error now quotes the
// first 140 characters with "…", as the JS SDK's check does, and says
// how long the name is.
func TestLongToolNameClippedInError(t *testing.T) {
	name := strings.Repeat("a", 100_000)
	err := ValidateToolName(name)
	if err == nil {
		t.Fatal("a 100000-character tool name was accepted")
	}
	msg := err.Error()
	if len(msg) > 400 {
		t.Fatalf("the error quotes the whole name (%d bytes): %.200s…", len(msg), msg)
	}
	if !strings.Contains(msg, `"`+strings.Repeat("a", 140)+`…"`) || !strings.Contains(msg, "100000 characters") {
		t.Fatalf("error %q: want the name's first 140 characters with … and its length", msg)
	}
	// A name cut inside a multi-byte character is cut before it.
	err = ValidateToolName(strings.Repeat("a", 139) + strings.Repeat("é", 10))
	if err == nil || !strings.Contains(err.Error(), `"`+strings.Repeat("a", 139)+`…"`) {
		t.Fatalf("error %v: want the name cut before the character that does not fit", err)
	}
	// Short names are quoted whole, as before.
	if err := ValidateToolName("bad name"); err == nil || !strings.Contains(err.Error(), `invalid tool name "bad name": use 1-128`) {
		t.Fatalf("error %v", err)
	}
	if err := ValidateToolName(strings.Repeat("b", 128)); err != nil {
		t.Fatal(err)
	}
}

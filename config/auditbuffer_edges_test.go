package config

import (
	"strings"
	"testing"
)

// TestAuditBufferBounded: audit.buffer is how many records wait in
// memory for the writer (and are lost by a crash); any positive number
// was taken, 1000000000 too.
func TestAuditBufferBounded(t *testing.T) {
	_, err := Parse([]byte("data: /srv\naudit:\n  buffer: 1000000000\n"), "c.yaml")
	if err == nil || !strings.HasPrefix(err.Error(), "c.yaml:3: audit.buffer: 1000000000 is more than 1048576") {
		t.Fatalf("got %v", err)
	}
	if _, err := Parse([]byte("data: /srv\naudit:\n  buffer: 1048576\n"), "c.yaml"); err != nil {
		t.Fatalf("buffer 1048576: %v", err)
	}
}

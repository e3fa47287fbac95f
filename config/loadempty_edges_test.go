package config

import (
	"strings"
	"testing"
)

// Load("") (a program passing an unset environment variable's value) failed
// "config: open : no such file or directory", naming no input and saying a
// file is missing; it says the path is empty and what to do instead.
func TestLoadEmptyPathSaysEmpty(t *testing.T) {
	_, err := Load("")
	if err == nil || !strings.Contains(err.Error(), "empty path") || strings.Contains(err.Error(), "open :") {
		t.Fatalf("Load(\"\") = %v; want an error saying the path is empty", err)
	}
}

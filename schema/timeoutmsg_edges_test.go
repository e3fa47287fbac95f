package schema

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// A value whose pattern matching ran out of time was refused with its
// string's first 37 bytes quoted ("matching \"hunter2SECRETaaaa…\" against
// pattern …"), into the InvalidParams answer and the audit log, which
// docs/audit.md says never hold a string value (a pattern that merely
// fails says only "does not match pattern …"). The message names the
// pattern, the string's pointer and its length, not the string.
func TestPatternTimeoutDoesNotQuoteTheValue(t *testing.T) {
	v := MustCompile("redos@1.0.0", map[string]any{"type": "object", "properties": map[string]any{
		"password": map[string]any{"type": "string", "pattern": `^(\w+\s?)*$`}}})
	secret := "hunter2SECRET" + strings.Repeat("a", 40) + "!"
	err := v.Validate(map[string]any{"password": secret})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a ValidationError", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "hunter") || strings.Contains(msg, "SECRET") {
		t.Errorf("the message quotes the value: %s", msg)
	}
	for _, w := range []string{"/password", strconv.Quote(`^(\w+\s?)*$`), "took too long", "54 bytes"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: does not say %q", msg, w)
		}
	}
}

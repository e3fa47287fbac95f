package schema

import (
	"strings"
	"testing"
)

// TestFormatErrorDoesNotQuoteTheValue: docs/audit.md promises the
// audit log's error field never quotes a string value, and a pattern
// failure was worded without it — but an asserted format (draft-07 and
// before) still put the string in the message ("'hunter2-SECRET' is not
// valid email: missing @"), and so into the audit log. The message names
// the format and the reason, without the value.
func TestFormatErrorDoesNotQuoteTheValue(t *testing.T) {
	for _, c := range []struct{ format, value, want string }{
		{"email", "hunter2-SECRET", "is not valid email (format): missing @"},
		{"date-time", "SECRET-2024", "is not valid date-time (format)"},
		{"ipv4", "10.0.SECRET", "is not valid ipv4 (format)"},
		{"uuid", "SECRET-0000", "is not valid uuid (format)"},
	} {
		v := MustCompile("t@1.0.0 parameters", map[string]any{"$schema": "http://json-schema.org/draft-07/schema#",
			"type": "object", "properties": map[string]any{"token": map[string]any{"type": "string", "format": c.format}}})
		err := v.Validate(map[string]any{"token": c.value})
		if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "at /token: "+c.want) {
			t.Errorf("format %s: %v; want a failure at /token saying %q that does not quote the value", c.format, err, c.want)
		}
	}
}

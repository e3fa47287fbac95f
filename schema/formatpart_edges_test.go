package schema

import (
	"strings"
	"testing"
)

// TestFormatErrorDoesNotQuotePartOfTheValue: a format's reason that
// quoted the whole string was left out (TestFormatErrorDoesNotQuoteTheValue),
// but one quoting a part of it was kept, so the InvalidParams message and
// the audit log held the date of a date-time ('invalid date element:
// parsing time "2024-13-01": month out of range') or the address of an
// email's domain ('ParseAddr("zz::1"): … (at "zz::1")'). The quoted part
// is left out; the reason stays.
func TestFormatErrorDoesNotQuotePartOfTheValue(t *testing.T) {
	for _, c := range []struct{ format, value, secret, want string }{
		{"date-time", "2024-13-01T00:00:00Z", "2024-13-01", "month out of range"},
		{"email", "a@[IPv6:zz::1]", "zz::1", "invalid ipv6 address"},
	} {
		v := MustCompile("t@1.0.0 parameters", map[string]any{"$schema": "http://json-schema.org/draft-07/schema#",
			"type": "object", "properties": map[string]any{"token": map[string]any{"type": "string", "format": c.format}}})
		err := v.Validate(map[string]any{"token": c.value})
		if err == nil || strings.Contains(err.Error(), c.secret) || !strings.Contains(err.Error(), "at /token: is not valid "+c.format+" (format): ") ||
			!strings.Contains(err.Error(), c.want) {
			t.Errorf("format %s: %v; want a failure at /token saying %q that does not quote %q", c.format, err, c.want, c.secret)
		}
	}
}

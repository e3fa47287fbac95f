package aios

import (
	"strings"
	"testing"
	"time"
)

// TestTimeFieldDateFormatChecked: a time.Time field, which encoding/json
// reads from RFC 3339 date-time text only, under a property schema of
// format "date" (or "time") loaded: its type "string" fits, but every value
// the schema describes ("2024-01-02", "10:30:00") failed as the caller's
// InvalidParams, `parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00"`.
// HandleFunc panics at registration now, naming the property, the field and
// the format to use; "date-time" (or no format) still loads, and so does
// "date" for a string field.
func TestTimeFieldDateFormatChecked(t *testing.T) {
	type In struct {
		Day   time.Time    `json:"day"`
		Slots []*time.Time `json:"slots"`
		Note  string       `json:"note"`
	}
	for _, c := range []struct{ name, schema, path, format, field string }{
		{"probe-timefmt-date", `{"type":"object","properties":{"day":{"type":"string","format":"date"}}}`, `"day"`, `"date"`, "Day"},
		{"probe-timefmt-time", `{"type":"object","properties":{"slots":{"type":"array","items":{"type":"string","format":"time"}}}}`, `"slots/*"`, `"time"`, "Slots"},
	} {
		got := registerPanic(t, c.name, func() {
			HandleFunc(Tool{Name: c.name, Parameters: Schema(c.schema)}, func(c *Call, in In) (any, error) { return nil, nil })
		})
		for _, w := range []string{"tool " + c.name + ":", c.path, c.format, c.field, `"date-time"`} {
			if !strings.Contains(got, w) {
				t.Errorf("%s: panic %q; want one naming %s", c.name, got, w)
			}
		}
	}
	if got := registerPanic(t, "probe-timefmt-ok", func() {
		HandleFunc(Tool{Name: "probe-timefmt-ok", Parameters: Schema(`{"type":"object","properties":{
			"day":{"type":"string","format":"date-time"},"slots":{"type":"array","items":{"type":"string"}},
			"note":{"type":"string","format":"date"}}}`)},
			func(c *Call, in In) (any, error) { return nil, nil })
	}); got != "" {
		t.Errorf("date-time and a string field of format date were refused: %s", got)
	}
}

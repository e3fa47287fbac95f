package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// The audit log keeps a failed call's error message (docs/audit.md says
// params never appear in it). The fast path words a pattern failure
// without the value ("does not match pattern …"), but a schema that uses
// any other keyword goes to the reference validator, whose message quoted
// the string itself: a password or token that missed its pattern was
// written into the audit log.
func TestPatternErrorDoesNotQuoteTheValue(t *testing.T) {
	for _, doc := range []string{
		`{"type":"object","properties":{"token":{"type":"string","pattern":"^[0-9]+$"}}}`,                     // fast path
		`{"type":"object","properties":{"token":{"type":"string","pattern":"^[0-9]+$","not":{"const":"x"}}}}`, // reference
		`{"type":"object","properties":{"token":{"type":"string","pattern":"^(?=x)[0-9]+$"}}}`,                // lookahead: reference
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		v, err := Compile("t", m)
		if err != nil {
			t.Fatal(err)
		}
		err = v.Validate(map[string]any{"token": "hunter2-SECRET"})
		if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "does not match pattern") {
			t.Errorf("schema %s (fast %v): Validate = %v; want a pattern failure that does not quote the value", doc, v.Fast(), err)
		}
	}
}

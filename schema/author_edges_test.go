package schema

import (
	"strings"
	"testing"
)

// TestRequiredTrueHint: `required: true` inside a property (OpenAPI 2,
// Joi, Mongoose and the like write it so) was refused with "at
// /properties/n/required: got boolean, want array" alone, leaving the
// author to find out how JSON Schema says it. The message now shows the
// form: the property's name in the object's "required" array, and the
// SDKs' shorthand rule.
func TestRequiredTrueHint(t *testing.T) {
	_, err := Compile("a@1.0.0 parameters", map[string]any{
		"type":       "object",
		"properties": map[string]any{"n": map[string]any{"type": "string", "required": true}},
	})
	if err == nil {
		t.Fatal("required: true accepted")
	}
	for _, want := range []string{"/properties/n/required", `"required": ["n"]`, "optional"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

package schema

import (
	"strings"
	"testing"
)

// TestUnknownDialectNamed: a schema whose $schema names a dialect the
// host does not know (OpenAPI 3.1's, which generated MCP and OpenAPI
// tools carry, or a draft URL with a typo) was refused as 'failing loading
// "…": external schema "…" refused: schemas must be self-contained (use
// $defs and local $ref)', naming no $schema and advising $defs, which
// cannot help. The error names $schema, the drafts the host knows and what
// to do.
func TestUnknownDialectNamed(t *testing.T) {
	for _, d := range []string{"https://spec.openapis.org/oas/3.1/dialect/base", "https://json-schema.org/draft/2020-12/schma"} {
		_, err := Compile("t@1.0.0 parameters", map[string]any{"$schema": d, "type": "object"})
		if err == nil {
			t.Errorf("$schema %s compiled", d)
			continue
		}
		for _, want := range []string{"t@1.0.0 parameters", `$schema "` + d + `"`, "2020-12", "draft-07", "remove"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("$schema %s: error %q does not contain %q", d, err, want)
			}
		}
		if strings.Contains(err.Error(), "use $defs") {
			t.Errorf("$schema %s: error %q advises $defs", d, err)
		}
	}
	// The drafts it knows, with or without the empty fragment.
	for _, d := range []string{"https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#",
		"https://json-schema.org/draft/2019-09/schema", "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema"} {
		if _, err := Compile("t@1.0.0 parameters", map[string]any{"$schema": d, "type": "object"}); err != nil {
			t.Errorf("$schema %s: %v", d, err)
		}
	}
}

package schema

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSchemaWithTooManySubschemasRefusedAtOnce: the reference compiler
// looks each subschema up in a list of those already queued, so its time
// grows with the square of their number: a parameters schema of 200 000
// properties (a generated one) held a Python provider's load, and the
// registry, for over ten minutes (40 000 took a minute). A schema
// of more than maxSubschemas subschemas (here 50 000, which took
// minutes) is refused at once, naming the bound; one at the bound is
// not.
func TestSchemaWithTooManySubschemasRefusedAtOnce(t *testing.T) {
	wide := func(n int) map[string]any {
		props := map[string]any{}
		for i := 0; i < n; i++ {
			props[fmt.Sprintf("p%d", i)] = map[string]any{"type": "integer"}
		}
		return map[string]any{"type": "object", "properties": props}
	}
	start := time.Now()
	_, err := Compile("wide@1.0.0 parameters", wide(50_000))
	if err == nil || !strings.Contains(err.Error(), "wide@1.0.0 parameters") ||
		!strings.Contains(err.Error(), fmt.Sprintf("more than %d subschemas", maxSubschemas)) {
		t.Fatalf("50 000 properties: %v; want the schema refused for having more than %d subschemas", err, maxSubschemas)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("refusing took %v", d)
	}
	// The root counts as one subschema; a schema at the bound is not
	// refused (compiling it is TestCostOfWideUnionLinear's size).
	if n := countSubschemas(wide(maxSubschemas-1), 0, 0); n != maxSubschemas {
		t.Errorf("%d properties and the root counted as %d subschemas", maxSubschemas-1, n)
	}
	if _, err := Compile("over@1.0.0 parameters", wide(maxSubschemas)); err == nil {
		t.Errorf("%d subschemas compiled", maxSubschemas+1)
	}
	items := map[string]any{"type": "array", "prefixItems": []any{true, false}, "items": map[string]any{"$defs": map[string]any{"a": map[string]any{}}}}
	if n := countSubschemas(items, 0, 0); n != 5 {
		t.Errorf("%v counted as %d subschemas, want 5", items, n)
	}
}

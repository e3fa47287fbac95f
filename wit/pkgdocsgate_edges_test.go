package wit

import (
	"strings"
	"testing"
)

// TestPackageDocsEmptyGateRefused: a package-docs section whose gate is
// {"unstable": {"feature": ""}} or {"stable": {"since": ""}} was taken as
// a gate with nothing in it, so one with "deprecated" decoded to a lone
// `@deprecated(version = …)`, which does not parse ("@deprecated must be
// paired with @since or @unstable", at a line of text nobody sees; what
// FuzzPackageDocs found). Such a gate is refused, naming the section.
func TestPackageDocsEmptyGateRefused(t *testing.T) {
	bin := docsBinary(t)
	for _, gate := range []string{
		`{"unstable":{"feature":"","deprecated":"0.0.0"}}`,
		`{"unstable":{"feature":""}}`,
		`{"stable":{"since":"","deprecated":"0.0.0"}}`,
		`{"stable":{"since":""}}`,
	} {
		data := []byte("\x01{\"worlds\":{\"w\":{\"interface_import_stability\":{\"my:docs/types@1.2.0\":" + gate + "}}}}")
		_, err := DecodeBinary("x.wasm", withSection(bin, "package-docs", data), Options{})
		if err == nil || !strings.Contains(err.Error(), "package-docs") || strings.Contains(err.Error(), "(decoded)") {
			t.Errorf("%s: %v; want the section refused", gate, err)
		}
	}
	// A real gate still decodes.
	data := []byte("\x01{\"worlds\":{\"w\":{\"interface_import_stability\":{\"my:docs/types@1.2.0\":{\"unstable\":{\"feature\":\"f\",\"deprecated\":\"1.0.0\"}}}}}}")
	if _, err := DecodeBinary("x.wasm", withSection(bin, "package-docs", data), Options{AllFeatures: true}); err != nil {
		t.Errorf("a real gate: %v", err)
	}
}

package wit

import (
	"testing"
)

// TestPackageDocsKeywordFeaturePrints (found by a probe, fixed; the fault as it was): a package-docs gate may name
// a feature that is a WIT keyword ("interface", "world", "type", …:
// validateID accepts them). The decoder writes it escaped (%interface)
// and the package resolves, but Print writes gates' features unescaped
// (printer.gate), so `aios-host wit pkg.wasm` prints WIT that its own
// parser refuses: "expected an identifier, found keyword `interface`".
func TestPackageDocsKeywordFeaturePrints(t *testing.T) {
	bin := docsBinary(t)
	for _, s := range []string{
		`{"interfaces":{"types":{"stability":{"unstable":{"feature":"interface"}}}}}`,
		`{"interfaces":{"types":{"stability":{"stable":{"since":"1.0.0","feature":"world"}}}}}`,
	} {
		opts := Options{Features: []string{"interface", "world"}}
		r, err := DecodeBinary("x.wasm", withSection(bin, "package-docs", append([]byte{1}, s...)), opts)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		out := Print(r)
		if _, err := ParseSource("printed.wit", out, opts); err != nil {
			t.Errorf("%s: the decoded package prints as WIT that does not parse: %v", s, err)
		}
	}
}

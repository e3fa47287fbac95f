package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestBOMNotCountedInColumns: a provider file saved with a byte order
// mark (as Windows editors save UTF-8) had every error on its first line
// one column too far right (esbuild counted the mark: "bom.ts:1:12" for
// the 11th column), and the quoted source line began with the invisible
// mark. The mark is dropped before bundling.
func TestBOMNotCountedInColumns(t *testing.T) {
	rt := newRuntime(t, Options{})
	_, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "bom.ts", "\uFEFFconst x = ;\n")}, abi.RuntimeJS)
	if err == nil {
		t.Fatal("a syntax error loaded")
	}
	if !strings.Contains(err.Error(), "bom.ts:1:11") || strings.Contains(err.Error(), "\uFEFF") {
		t.Errorf("%v; want the error at bom.ts:1:11, without the byte order mark", err)
	}
}

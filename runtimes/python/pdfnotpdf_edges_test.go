package python_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestSeedPdfExtractNotAPDFInvalidParams: an object_id naming an object
// that is not a PDF (a text file stored in documents) is the caller's
// mistake, as a bad page range is (docs/python.md): it was a
// ProviderError "ValueError: not a PDF (no %PDF- header) (at
// pdf_tools.py:205)", read as the tool failing and naming no parameter.
// It is InvalidParams naming object_id and what the object begins with.
func TestSeedPdfExtractNotAPDFInvalidParams(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	src := filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "pdf_tools.py")
	if _, err := h.LoadFile(context.Background(), src, host.ProviderMeta{Source: src, Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	id, err := h.Spaces().Put("documents", []byte("hello, not a PDF"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(h, "pdf-extract", map[string]any{"object_id": id, "pages": ""}, 0)
	wantCode(t, err, abi.InvalidParams, "object_id", "not a PDF", "%PDF-", `"hello, not a PDF"`)
}

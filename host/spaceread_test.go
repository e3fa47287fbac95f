package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/space"
)

// TestReadSpaceAs: the agent's ReadSpace grant decides; without a store
// reads are Unavailable and lists empty; objects over max_result_bytes
// are TooLarge; an unknown agent is CapabilityDenied.
func TestReadSpaceAs(t *testing.T) {
	cfg, err := config.Parse([]byte("agents:\n  a: {grants: [\"ReadSpace(d*)\"]}\nlimits: {max_result_bytes: 8}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := space.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	small, _ := st.Put("docs", []byte("small"))
	big, _ := st.Put("docs", []byte("over eight bytes"))
	if _, err := st.Put("other", []byte("x")); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Config: cfg, Spaces: st})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	if sp, err := h.ReadableSpaces("a"); err != nil || strings.Join(sp, ",") != "docs" {
		t.Fatalf("ReadableSpaces = %v %v", sp, err)
	}
	if ids, err := h.ListSpaceAs("a", "docs"); err != nil || len(ids) != 2 {
		t.Fatalf("ListSpaceAs = %v %v", ids, err)
	}
	if b, err := h.ReadSpaceAs(ctx, "a", "docs", small); err != nil || string(b) != "small" {
		t.Fatalf("read = %q %v", b, err)
	}
	for _, tc := range []struct {
		agent, space, id string
		code             abi.ErrorCode
	}{
		{"a", "docs", big, abi.TooLarge},
		{"a", "other", small, abi.CapabilityDenied},
		{"nobody", "docs", small, abi.CapabilityDenied},
		{"a", "../docs", small, abi.InvalidParams},
		{"a", "docs", "sha256:zz", abi.InvalidParams},
	} {
		if b, err := h.ReadSpaceAs(ctx, tc.agent, tc.space, tc.id); abi.CodeOf(err) != tc.code || b != nil {
			t.Errorf("%s reads %s/%s: %q %v, want %s", tc.agent, tc.space, tc.id, b, err, tc.code)
		}
	}
	if _, err := h.ListSpaceAs("a", "other"); abi.CodeOf(err) != abi.CapabilityDenied {
		t.Errorf("ListSpaceAs(other) = %v", err)
	}

	h2, err := New(Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if sp, err := h2.ReadableSpaces("a"); err != nil || len(sp) != 0 {
		t.Errorf("no store: ReadableSpaces = %v %v", sp, err)
	}
	if _, err := h2.ReadSpaceAs(ctx, "a", "docs", small); abi.CodeOf(err) != abi.Unavailable {
		t.Errorf("no store: read = %v", err)
	}
}

// TestReadSpaceAsChecksSizeFirst: an object over max_result_bytes is
// refused from its size, without being read: one whose file no longer
// hashes to its id (read, it would say corrupt) answers TooLarge, and a
// Space object of that size is never loaded into the host.
func TestReadSpaceAsChecksSizeFirst(t *testing.T) {
	cfg, err := config.Parse([]byte("agents:\n  a: {grants: [\"ReadSpace(docs)\"]}\nlimits: {max_result_bytes: 8}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	st, err := space.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := st.Put("docs", []byte("over eight bytes"))
	hex := strings.TrimPrefix(id, "sha256:")
	file := filepath.Join(root, "docs", hex[:2], hex[2:]) // the store's layout
	_ = os.Chmod(file, 0o600)                             // objects are stored read-only
	if err := os.WriteFile(file, []byte("garbage that is not the object, and long"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Config: cfg, Spaces: st})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.ReadSpaceAs(context.Background(), "a", "docs", id); abi.CodeOf(err) != abi.TooLarge || !strings.Contains(err.Error(), "has 40 bytes") {
		t.Fatalf("read of an object over the bound: %v; want TooLarge from its size, without reading it", err)
	}
	if n, err := st.Size("docs", id); err != nil || n != 40 {
		t.Fatalf("Size = %d %v", n, err)
	}
	if _, err := st.Size("docs", "sha256:"+strings.Repeat("0", 64)); !errors.Is(err, space.ErrNotFound) {
		t.Fatalf("Size of a missing object: %v", err)
	}
}

package host

import (
	"context"
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

package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestZeroHostSpaceReadsAreErrorNotPanic: the Space methods of a zero
// host.Host (declared, not made with New) panicked with a nil pointer
// dereference, as Call did before it said so: ReadableSpaces,
// ListSpaceAs, ListSpacePageAs, ReadSpaceAs and ReadSpaceAsChecked. Each
// says the Host was not made with New (Unavailable).
func TestZeroHostSpaceReadsAreErrorNotPanic(t *testing.T) {
	ctx := context.Background()
	id := "sha256:" + strings.Repeat("0", 64)
	for what, f := range map[string]func(h *host.Host) error{
		"ReadableSpaces": func(h *host.Host) error { _, err := h.ReadableSpaces("cli"); return err },
		"ListSpaceAs":    func(h *host.Host) error { _, err := h.ListSpaceAs("cli", "docs"); return err },
		"ListSpacePageAs": func(h *host.Host) error {
			_, err := h.ListSpacePageAs("cli", "docs", "", 10)
			return err
		},
		"ReadSpaceAs": func(h *host.Host) error { _, err := h.ReadSpaceAs(ctx, "cli", "docs", id); return err },
		"ReadSpaceAsChecked": func(h *host.Host) error {
			_, err := h.ReadSpaceAsChecked(ctx, "cli", "docs", id, nil)
			return err
		},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s on a zero Host panicked: %v", what, r)
				}
			}()
			var h host.Host
			if err := f(&h); abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "host.New") {
				t.Errorf("%s on a zero Host: err = %v, want Unavailable naming host.New", what, err)
			}
		}()
	}
}

package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/config"
)

// TestDecodeRefusalSaysSizesUnderMiB: the refusal for want of
// limits.max_decode_bytes gives the sizes it names in units that show
// them. It gave each in whole MiB, so a limit of 150000 bytes and a
// message estimated at 600 KiB read "estimated to decode to 0 MiB … hold
// 0 MiB of limits.max_decode_bytes (0 MiB)".
func TestDecodeRefusalSaysSizesUnderMiB(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) { c.Limits.MaxDecodeBytes = 150_000 })
	old := decodeWait
	decodeWait = 100 * time.Millisecond
	t.Cleanup(func() { decodeWait = old })
	r, err := te.h.reserveDecode(context.Background(), 100<<10, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	defer r()
	_, err = te.h.reserveDecode(context.Background(), 100<<10, 600<<10)
	if err == nil {
		t.Fatal("a second large message fit past limits.max_decode_bytes")
	}
	t.Logf("%v", err)
	if strings.Contains(err.Error(), " 0 MiB") || !strings.Contains(err.Error(), "146 KiB") {
		t.Errorf("%v; want the sizes in KiB, the limit as 146 KiB", err)
	}
}

package wasm

import (
	"runtime"
	"testing"

	iwire "github.com/aios-host/aios-host/internal/wire"
)

// A WASM guest's result (up to max_message_bytes, 64 MiB) is costed before
// decodeResult decodes it: [{}]*N is refused (found by a probe: 488 MiB
// for an 8 MB result).
func TestWasmResultDecodeBudget(t *testing.T) {
	var n = 8_000_000
	b := []byte{0x81, 0xa5, 'v', 'a', 'l', 'u', 'e', 0xdd, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	for i := 0; i < n; i++ {
		b = append(b, 0x80)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, guestErr, protoErr := decodeResult(b)
	runtime.ReadMemStats(&after)
	alloc := (after.TotalAlloc - before.TotalAlloc) >> 20
	_ = v
	t.Logf("frame %d bytes, host allocated %d MiB, guestErr=%v protoErr=%v", len(b), alloc, guestErr, protoErr)
	if protoErr == nil && alloc > 200 {
		t.Errorf("a %d MiB guest result cost the host %d MiB (no decode budget)", len(b)>>20, alloc)
	}
}

// The guest's host-call requests (aios.space_write etc.) are costed before
// serveHost decodes them (found by a probe: an 8 MB request of empty
// arrays decoded to 305 MiB).
func TestWasmHostCallDecodeBudget(t *testing.T) {
	var n = 8_000_000
	b := []byte{0x81, 0xa4, 'd', 'a', 't', 'a', 0xdd, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	for i := 0; i < n; i++ {
		b = append(b, 0x90)
	}
	if err := iwire.CheckCost(b, "msgpack", iwire.DecodeBudget); err == nil {
		t.Fatal("the request passes the decode budget")
	}
}

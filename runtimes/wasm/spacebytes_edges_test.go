package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"
)

// TestGoGuestSpaceBytes (no defect): a Go guest's c.SpaceWrite then
// c.SpaceRead round-trips its bytes exactly, as a JS Uint8Array, a Python
// bytes and a component's list<u8> do: all 256 byte values, an empty
// object (a nil slice too: MessagePack nil is not bin, yet it is the empty
// object, not "request needs data") and 3 MiB; the id is the sha256 of the
// bytes written.
func TestGoGuestSpaceBytes(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, probeGoGuest(t, probeHostCallsGuestSrc))
	env := newFakeEnv(p, 4)
	for _, c := range []struct {
		params map[string]any
		n      int
	}{
		{map[string]any{"space": "s", "n": 256}, 256},
		{map[string]any{"space": "s", "n": 0}, 0},
		{map[string]any{"space": "s", "nil": true}, 0},
		{map[string]any{"space": "s", "n": 3 << 20}, 3 << 20},
	} {
		data := make([]byte, c.n)
		for i := range data {
			data[i] = byte(i)
		}
		sum := sha256.Sum256(data)
		v, err := call(p, env, "write-read", c.params, 30*time.Second)
		m, _ := v.(map[string]any)
		if err != nil || m["same"] != true || m["len"] != int64(c.n) || m["space"] != "s" || m["id"] != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Errorf("write-read %v: %v %v; want the %d bytes back under their sha256", c.params, v, err, c.n)
		}
	}
}

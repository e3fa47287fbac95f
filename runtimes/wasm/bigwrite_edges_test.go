package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
	"github.com/tetratelabs/wazero/api"
)

// bytesMemory is a guest memory holding b (only Read and Size are used).
type bytesMemory struct {
	api.Memory
	b []byte
}

func (m bytesMemory) Size() uint32 { return uint32(len(m.b)) }

func (m bytesMemory) Read(off, n uint32) ([]byte, bool) {
	if uint64(off)+uint64(n) > uint64(len(m.b)) {
		return nil, false
	}
	return m.b[off : off+n], true
}

// TestSpaceWriteRequestTooLargeNamesSpace: a guest's space_write of an
// object whose request passes runtimes.wasm.max_message_bytes (a 70 MiB
// object, under limits.max_object_bytes) failed "TooLarge:
// aios.space_write: request of 73400340 bytes is above ...", naming
// neither the space nor the object's size, as a space_read answer over
// it now names its object and JS and Python writes over their frame name
// theirs. It names the space and the bytes written, in either codec.
func TestSpaceWriteRequestTooLargeNamesSpace(t *testing.T) {
	data := make([]byte, 300)
	packed, err := wire.AppendValue(nil, map[string]any{"space": "photos", "data": data})
	if err != nil {
		t.Fatal(err)
	}
	js := []byte(`{"data":"` + strings.Repeat("A", 400) + `","space":"photos"}`)
	p := &Provider{maxMsg: 100}
	for name, req := range map[string][]byte{"msgpack": packed, "json": js} {
		_, terr, _ := p.serveHost(nil, bytesMemory{b: req}, opSpaceWrite, 0, uint32(len(req)))
		if terr == nil || terr.Code != abi.TooLarge {
			t.Fatalf("%s: %v, want TooLarge", name, terr)
		}
		for _, want := range []string{`space "photos"`, "300 bytes", "max_message_bytes"} {
			if !strings.Contains(terr.Message, want) {
				t.Errorf("%s: %q; want it to name %s", name, terr.Message, want)
			}
		}
	}
}

package wasm

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/aios-host/aios-host/guest/go/wire"
)

// notJSONAt is the path, from path ("$"), of the first value in the
// MessagePack value v that JSON cannot hold (NaN, an infinity, bin, an
// extension), or "" when it finds none: the decoder that refused the
// value says only the byte offset, and the JS, Python and component
// runtimes name such a value by its path ($.a[1]).
func notJSONAt(v []byte, path string, depth int) string {
	if len(v) == 0 || depth > wire.MaxDepth {
		return ""
	}
	c := v[0]
	switch {
	case c == 0xca && len(v) >= 5:
		f := float64(math.Float32frombits(binary.BigEndian.Uint32(v[1:5])))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case c == 0xcb && len(v) >= 9:
		f := math.Float64frombits(binary.BigEndian.Uint64(v[1:9]))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case c >= 0xc4 && c <= 0xc9, c >= 0xd4 && c <= 0xd8:
		return path
	case c >= 0x80 && c <= 0x8f, c == 0xde, c == 0xdf:
		it, err := wire.NewMapIter(v)
		if err != nil {
			return ""
		}
		for it.Next() {
			if p := notJSONAt(it.Value(), path+"."+string(it.Key()), depth+1); p != "" {
				return p
			}
		}
	case c >= 0x90 && c <= 0x9f, c == 0xdc, c == 0xdd:
		n, off := int(c&0x0f), 1
		switch {
		case c == 0xdc && len(v) >= 3:
			n, off = int(binary.BigEndian.Uint16(v[1:3])), 3
		case c == 0xdd && len(v) >= 5:
			n, off = int(binary.BigEndian.Uint32(v[1:5])), 5
		case c >= 0xdc:
			return ""
		}
		rest := v[off:]
		for i := 0; i < n; i++ {
			k, err := wire.SkipMessage(rest, wire.MaxDepth)
			if err != nil {
				return ""
			}
			if p := notJSONAt(rest[:k], path+"["+strconv.Itoa(i)+"]", depth+1); p != "" {
				return p
			}
			rest = rest[k:]
		}
	}
	return ""
}

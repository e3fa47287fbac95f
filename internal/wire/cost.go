package wire

import (
	"encoding/binary"
	"fmt"
)

// DecodeBudget bounds the host memory one worker frame may decode to (an
// estimate: 16 bytes a value, more for maps and arrays, plus string
// bytes). A frame is at most 64 MiB, but decoding turns each byte of
// [{},{},…] or [nil,nil,…] into 64 or 16 bytes of Go values: a tool could
// make the host allocate gigabytes with one result. Frames above the
// budget are refused before they are decoded.
const DecodeBudget = 256 << 20

// Estimated decoded sizes.
const (
	costValue = 16 // an interface value
	costArray = 24 // a slice header
	costMap   = 48 // a map header
	costEntry = 48 // a map entry (key and value), on top of the value's own
	costBoxed = 16 // a number's boxed value, on top of costValue
	costStr   = 16 // a non-empty string's allocation, on top of costValue and its bytes
)

// CostError is a frame whose decoded size would pass the budget.
type CostError struct {
	Frame, Cost, Budget int64
}

func (e *CostError) Error() string {
	return fmt.Sprintf("a frame of %d bytes would decode to about %d MiB of host memory, above the %d MiB a frame may take (many small values: empty maps, nulls)",
		e.Frame, e.Cost>>20, e.Budget>>20)
}

// maxCostPerByte bounds the estimate per byte of a frame: an empty map
// (`{` or 0x80) is the dearest byte, and a MessagePack map header charges
// costEntry for each pair, whose key and value take two bytes at least
// (FuzzCheckCost checks the bound). A frame that many times smaller than
// the budget is under it without a scan: ordinary calls' frames (below
// about 3 MiB) are never walked.
const maxCostPerByte = costValue + costMap + costEntry/2

// CheckCost estimates what frame (format "msgpack" or "json") decodes to
// and returns a *CostError when that passes budget. A malformed frame is
// left to the decoder (nil).
func CheckCost(frame []byte, format string, budget int64) error {
	if int64(len(frame))*maxCostPerByte <= budget {
		return nil
	}
	var cost int64
	var ok bool
	if format == "msgpack" {
		cost, ok = msgpackCost(frame, budget)
	} else {
		cost, ok = jsonCost(frame, budget)
	}
	if ok && cost > budget {
		return &CostError{Frame: int64(len(frame)), Cost: cost, Budget: budget}
	}
	return nil
}

// msgpackCost walks one MessagePack value; it stops early once the cost
// passes budget. ok is false for a malformed frame.
func msgpackCost(b []byte, budget int64) (cost int64, ok bool) {
	pending := int64(1) // values still to read
	off := 0
	need := func(n int) bool { return n >= 0 && off+n <= len(b) }
	for pending > 0 {
		if cost > budget {
			return cost, true
		}
		if !need(1) {
			return cost, false
		}
		c := b[off]
		off++
		pending--
		var n int64 = -1 // bytes to skip
		switch {
		case c <= 0x7f, c >= 0xe0:
			cost += costValue + costBoxed // a small integer, boxed
			n = 0
		case c == 0xc0, c == 0xc2, c == 0xc3:
			cost += costValue
			n = 0
		case c >= 0x80 && c <= 0x8f:
			k := int64(c & 0x0f)
			pending += 2 * k
			cost += costValue + costMap + costEntry*k
			n = 0
		case c >= 0x90 && c <= 0x9f:
			k := int64(c & 0x0f)
			pending += k
			cost += costValue + costArray
			n = 0
		case c >= 0xa0 && c <= 0xbf:
			n = int64(c & 0x1f)
			cost += costValue + n
			if n > 0 {
				cost += costStr
			}
		case c == 0xca:
			n, cost = 4, cost+costValue+costBoxed
		case c == 0xcb:
			n, cost = 8, cost+costValue+costBoxed
		case c >= 0xcc && c <= 0xcf:
			n, cost = 1<<(c-0xcc), cost+costValue+costBoxed
		case c >= 0xd0 && c <= 0xd3:
			n, cost = 1<<(c-0xd0), cost+costValue+costBoxed
		case c >= 0xd4 && c <= 0xd8:
			n, cost = 1+1<<(c-0xd4), cost+costValue
		case c == 0xd9 || c == 0xc4, c == 0xda || c == 0xc5, c == 0xdb || c == 0xc6, c >= 0xc7 && c <= 0xc9:
			var w int
			switch c {
			case 0xd9, 0xc4, 0xc7:
				w = 1
			case 0xda, 0xc5, 0xc8:
				w = 2
			default:
				w = 4
			}
			if !need(w) {
				return cost, false
			}
			n = int64(readN(b[off:], w))
			off += w
			if c >= 0xc7 && c <= 0xc9 {
				n++ // the extension type
			}
			cost += costValue + costStr + n
		case c == 0xdc, c == 0xdd, c == 0xde, c == 0xdf:
			w := 2
			if c == 0xdd || c == 0xdf {
				w = 4
			}
			if !need(w) {
				return cost, false
			}
			k := int64(readN(b[off:], w))
			off += w
			if k > int64(len(b)-off) {
				return cost, false // more elements than bytes left
			}
			if c >= 0xde {
				pending += 2 * k
				cost += costValue + costMap + costEntry*k
			} else {
				pending += k
				cost += costValue + costArray
			}
			n = 0
		default:
			return cost, false
		}
		if n > int64(len(b)-off) {
			return cost, false
		}
		off += int(n)
	}
	return cost, true
}

func readN(b []byte, w int) uint32 {
	switch w {
	case 1:
		return uint32(b[0])
	case 2:
		return uint32(binary.BigEndian.Uint16(b))
	}
	return binary.BigEndian.Uint32(b)
}

// jsonCost estimates a JSON text's decoded size from its structure: maps,
// arrays, each value after a separator, map keys, numbers (the decoder
// reads a number as text first, then converts it), strings and their
// escapes. Measured against abi.JSON.Unmarshal, it is within about 2× of
// the real allocation for the shapes a probe tried.
func jsonCost(b []byte, budget int64) (cost int64, ok bool) {
	const (
		costNumber = 40 // the number's text, then its value
		costKey    = 32 // a map key's string
		costEscape = 8
	)
	in, esc, num := false, false, false
	for i, c := range b {
		if cost > budget && i&0xfff == 0 {
			return cost, true
		}
		if in {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
				cost += costEscape
			case c == '"':
				in = false
			default:
				cost++
			}
			continue
		}
		isNum := c == '-' || c >= '0' && c <= '9'
		if isNum && !num {
			cost += costValue + costNumber
		}
		num = isNum || num && (c == '.' || c == 'e' || c == 'E' || c == '+')
		switch c {
		case '"':
			in = true
			cost += costValue + 8
		case '{':
			cost += costValue + costMap
		case '[':
			cost += costValue + costArray
		case ',':
			cost += costEntry
		case ':':
			cost += costKey
		case 'n', 't', 'f': // null, true, false
			cost += costValue
		}
	}
	return cost, true
}

package wire

import (
	"errors"
	"fmt"

	mpw "github.com/aios-host/aios-host/guest/go/wire"
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

// CostError is a frame whose decoded size would pass the budget. Cost is
// the estimate where the walk stopped, just past Budget (the rest of the
// frame is not walked), so the message names the budget, not Cost.
type CostError struct {
	Frame, Cost, Budget int64
}

func (e *CostError) Error() string {
	return fmt.Sprintf("a frame of %d bytes would decode to more than the %s of host memory a frame may take (an estimate; many small values such as empty maps or nulls)",
		e.Frame, SizeText(e.Budget))
}

// SizeText says n bytes in MiB, or in KiB or bytes below 1 MiB (a limit
// of 150000 bytes said in whole MiB read "0 MiB").
func SizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
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
	if format != "msgpack" {
		return CheckJSONCost(frame, budget, 0)
	}
	if int64(len(frame))*maxCostPerByte <= budget {
		return nil
	}
	if cost, ok := msgpackCost(frame, budget); ok && cost > budget {
		return &CostError{Frame: int64(len(frame)), Cost: cost, Budget: budget}
	}
	return nil
}

// CheckJSONCost is CheckCost of a JSON frame whose objects may decode to
// typed structs: each object is charged at least perObject bytes (the
// largest struct the decoder makes of one) instead of a generic map's (0:
// generic maps).
func CheckJSONCost(frame []byte, budget, perObject int64) error {
	perObject = max(perObject, costValue+costMap)
	if int64(len(frame))*max(maxCostPerByte, perObject) <= budget {
		return nil
	}
	cost, ok := jsonCostObjects(frame, budget, perObject)
	if ok && cost > budget {
		return &CostError{Frame: int64(len(frame)), Cost: cost, Budget: budget}
	}
	return nil
}

// JSONCost estimates what the JSON frame decodes to as generic values,
// walking it; the walk stops once the estimate passes budget, and over
// says so (CheckJSONCost's refusal). A malformed frame's estimate is what
// was walked of it.
func JSONCost(frame []byte, budget int64) (cost int64, over bool) {
	cost, ok := jsonCost(frame, budget)
	return cost, ok && cost > budget
}

// msgpackCost walks one MessagePack value (guest/go/wire's Walk, the
// skipper the host already runs before its codec); it stops once the cost
// passes budget. ok is false for a malformed frame.
func msgpackCost(b []byte, budget int64) (cost int64, ok bool) {
	_, err := mpw.Walk(b, func(c byte, n int) bool {
		cost += msgpackValueCost(c, int64(n))
		return cost <= budget
	})
	return cost, err == nil || errors.Is(err, mpw.ErrStopped)
}

// msgpackValueCost is the estimate of one value of type byte c with
// length or count n (see Walk), not counting its contents.
func msgpackValueCost(c byte, n int64) int64 {
	switch {
	case c >= 0x80 && c <= 0x8f, c == 0xde, c == 0xdf: // map of n pairs
		return costValue + costMap + costEntry*n
	case c >= 0x90 && c <= 0x9f, c == 0xdc, c == 0xdd: // array
		return costValue + costArray
	case c >= 0xa0 && c <= 0xbf, c >= 0xd9 && c <= 0xdb, c >= 0xc4 && c <= 0xc6, c >= 0xc7 && c <= 0xc9: // str, bin, ext
		if n == 0 {
			return costValue
		}
		return costValue + costStr + n
	case c == 0xc0, c == 0xc2, c == 0xc3, c >= 0xd4 && c <= 0xd8: // nil, bool, fixext
		return costValue
	}
	return costValue + costBoxed // a number, boxed
}

// jsonCost estimates a JSON text's decoded size from its structure: maps,
// arrays, each value after a separator, map keys, numbers (the decoder
// reads a number as text first, then converts it), strings and their
// escapes. Measured against abi.JSON.Unmarshal, it is within about 2× of
// the real allocation for the shapes a probe tried.
func jsonCost(b []byte, budget int64) (cost int64, ok bool) {
	return jsonCostObjects(b, budget, costValue+costMap)
}

// jsonCostObjects is jsonCost with each object charged perObject.
func jsonCostObjects(b []byte, budget, perObject int64) (cost int64, ok bool) {
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
			cost += perObject
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

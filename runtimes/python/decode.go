package python

import (
	"bytes"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	mpw "github.com/aios-host/aios-host/guest/go/wire"
)

// The result envelope is the hot path worker → host. The SDK writes it
// with a fixed shape (compact separators, keys in this order):
//
//	{"v":1,"kind":"result","id":ID,"result":{"call_id":ID,"value":VALUE}}
//
// decodeResultFrame reads exactly that shape with a direct decoder into
// canonical values (abi.Normalize: int64 for integer literals that fit,
// float64 otherwise), about five times faster than encoding/json's
// reflection plus Normalize. Anything else (errors, logs, host calls,
// escapes in strings, invalid UTF-8, deep nesting, any deviation) is left
// to the general decoder (ok false), so the fast path decides nothing the
// general one would decide differently.

const (
	resultPrefix = `{"v":1,"kind":"result","id":`
	resultMid    = `,"result":{"call_id":`
	resultValue  = `,"value":`
	// fastMaxDepth bounds the nesting the fast path follows.
	fastMaxDepth = 512
)

// decodeResultFrame decodes a result frame of the fixed shape; ok is false
// when the frame is not of that shape (then nothing is returned).
func decodeResultFrame(frame []byte) (env *abi.Envelope, ok bool) {
	d := fastDecoder{b: frame}
	if !d.lit(resultPrefix) {
		return nil, false
	}
	id, ok := d.str()
	if !ok || !d.lit(resultMid) {
		return nil, false
	}
	cid, ok := d.str()
	if !ok || cid != id || !d.lit(resultValue) {
		return nil, false
	}
	v, ok := d.value(0)
	if !ok || !d.lit("}}") || d.i != len(d.b) {
		return nil, false
	}
	return &abi.Envelope{V: 1, Kind: abi.KindResult, ID: id, Result: &abi.ToolResult{CallID: cid, Value: v}}, true
}

// fastDecoder is a strict JSON reader of compact JSON (no white space)
// that gives up (ok false) on anything it does not handle.
type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) lit(s string) bool {
	if len(d.b)-d.i < len(s) || string(d.b[d.i:d.i+len(s)]) != s {
		return false
	}
	d.i += len(s)
	return true
}

// str reads a string without escapes whose bytes are valid UTF-8.
func (d *fastDecoder) str() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	end := bytes.IndexByte(d.b[start:], '"')
	if end < 0 {
		return "", false
	}
	s := d.b[start : start+end]
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(s) {
		return "", false
	}
	d.i = start + end + 1
	return string(s), true
}

func (d *fastDecoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) || depth > fastMaxDepth {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '"':
		return d.str()
	case c == '{':
		d.i++
		m := map[string]any{}
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return m, true
		}
		for {
			k, ok := d.str()
			if !ok || !d.lit(":") {
				return nil, false
			}
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			if d.i >= len(d.b) {
				return nil, false
			}
			switch d.b[d.i] {
			case ',':
				d.i++
			case '}':
				d.i++
				return m, true
			default:
				return nil, false
			}
		}
	case c == '[':
		d.i++
		a := []any{}
		if d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			return a, true
		}
		for {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			if d.i >= len(d.b) {
				return nil, false
			}
			switch d.b[d.i] {
			case ',':
				d.i++
			case ']':
				d.i++
				return a, true
			default:
				return nil, false
			}
		}
	case c == 't':
		return true, d.lit("true")
	case c == 'f':
		return false, d.lit("false")
	case c == 'n':
		return nil, d.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, false
}

// number reads a JSON number (strict grammar) as abi.Normalize reads a
// json.Number (guest/go/wire.Number).
func (d *fastDecoder) number() (any, bool) {
	b, i := d.b, d.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	d.i = i
	return mpw.Number(string(b[start:i])) // out of range: the general decoder reports it
}

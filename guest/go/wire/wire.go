// Package wire is the small MessagePack codec of the AIOS guest ABI v1
// (docs/abi.md): it encodes and decodes canonical generic values (nil, bool,
// int64, float64, string, []any, map[string]any; see abi.Normalize) and raw
// byte strings, appending to caller-owned buffers so a hot path allocates only
// what the decoded value itself needs.
//
// Both sides of the ABI use it: the wasm runtime on the host (runtimes/wasm)
// and the Go guest SDK (guest/go) compiled for GOOS=wasip1. It therefore
// depends on the standard library only and must never import abi, the
// runtimes, the host or anything that does not build for wasip1.
//
// abi.MsgPack (vmihailenco/msgpack) is the reference implementation; the
// tests check this codec against it.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxDepth bounds the nesting of decoded values, as abi.Normalize does.
const MaxDepth = 512

// ErrUnsupported is returned by AppendValue for a Go value that has no
// canonical form here; the caller may normalize it and try again.
var ErrUnsupported = errors.New("wire: value is not a canonical generic value")

// AppendNil appends a MessagePack nil.
func AppendNil(b []byte) []byte { return append(b, 0xc0) }

// AppendBool appends a MessagePack boolean.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 0xc3)
	}
	return append(b, 0xc2)
}

// AppendUint appends u: as AppendInt when it fits int64, else as
// MessagePack's uint 64 (0xcf).
func AppendUint(b []byte, u uint64) []byte {
	if u <= math.MaxInt64 {
		return AppendInt(b, int64(u))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xcf), u)
}

// AppendInt appends an integer in its most compact MessagePack form.
func AppendInt(b []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 0x7f:
		return append(b, byte(v))
	case v < 0 && v >= -32:
		return append(b, byte(v))
	case v >= 0 && v <= math.MaxUint8:
		return append(b, 0xcc, byte(v))
	case v >= 0 && v <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(v))
	case v >= 0 && v <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(v))
	case v >= math.MinInt8 && v < 0:
		return append(b, 0xd0, byte(v))
	case v >= math.MinInt16 && v < 0:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(v))
	case v >= math.MinInt32 && v < 0:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(v))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(v))
}

// AppendFloat appends a float64.
func AppendFloat(b []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(v))
}

// AppendString appends a MessagePack str.
func AppendString(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n <= 31:
		b = append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

// AppendBytes appends a MessagePack bin.
func AppendBytes(b []byte, p []byte) []byte {
	n := len(p)
	switch {
	case n <= math.MaxUint8:
		b = append(b, 0xc4, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xc5), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xc6), uint32(n))
	}
	return append(b, p...)
}

// AppendArrayHeader appends the header of an array of n elements.
func AppendArrayHeader(b []byte, n int) []byte {
	switch {
	case n <= 15:
		return append(b, 0x90|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xdc), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdd), uint32(n))
}

// AppendMapHeader appends the header of a map of n pairs.
func AppendMapHeader(b []byte, n int) []byte {
	switch {
	case n <= 15:
		return append(b, 0x80|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xde), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdf), uint32(n))
}

// AppendValue appends v, which must be a canonical generic value, an int, a
// []byte (encoded as bin), a []string or a map[string]string. Anything else
// yields an error wrapping ErrUnsupported naming the path of the value.
func AppendValue(b []byte, v any) ([]byte, error) {
	return appendValue(b, v, 0, true)
}

// AppendJSONValue is AppendValue for a value that must be JSON (a result,
// params): a []byte is an error naming its path, not a bin, which the host
// refuses there.
func AppendJSONValue(b []byte, v any) ([]byte, error) {
	return appendValue(b, v, 0, false)
}

func appendValue(b []byte, v any, depth int, bin bool) ([]byte, error) {
	if depth > MaxDepth {
		return b, fmt.Errorf("wire: value nested deeper than %d levels", MaxDepth)
	}
	var err error
	switch x := v.(type) {
	case nil:
		return AppendNil(b), nil
	case bool:
		return AppendBool(b, x), nil
	case int64:
		return AppendInt(b, x), nil
	case int:
		return AppendInt(b, int64(x)), nil
	case uint64:
		return AppendUint(b, x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, fmt.Errorf("wire: %v is not a JSON number", x)
		}
		return AppendFloat(b, x), nil
	case string:
		return AppendString(b, x), nil
	case []byte:
		if !bin {
			return b, errors.New("wire: raw bytes ([]byte) are not a JSON value (encode them as a base64 string, or write them to a space and pass the ObjectId)")
		}
		return AppendBytes(b, x), nil
	case []any:
		b = AppendArrayHeader(b, len(x))
		for i, e := range x {
			if b, err = appendValue(b, e, depth+1, bin); err != nil {
				return b, atPath("["+strconv.Itoa(i)+"]", err)
			}
		}
		return b, nil
	case map[string]any:
		b = AppendMapHeader(b, len(x))
		for k, e := range x {
			b = AppendString(b, k)
			if b, err = appendValue(b, e, depth+1, bin); err != nil {
				return b, atPath("."+k, err)
			}
		}
		return b, nil
	case []string:
		b = AppendArrayHeader(b, len(x))
		for _, e := range x {
			b = AppendString(b, e)
		}
		return b, nil
	case map[string]string:
		b = AppendMapHeader(b, len(x))
		for k, e := range x {
			b = AppendString(AppendString(b, k), e)
		}
		return b, nil
	}
	return b, fmt.Errorf("%w: a Go %T", ErrUnsupported, v)
}

// PathError is the error of a value inside the value AppendValue or
// AppendJSONValue was given, at Path, written as the JS and Python
// runtimes name a value: "$.a[3].b".
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string {
	return "wire: " + e.Path + ": " + strings.TrimPrefix(e.Err.Error(), "wire: ")
}

func (e *PathError) Unwrap() error { return e.Err }

// atPath is err, of the value at seg (".k", "[i]") in a container, with
// seg put before its path.
func atPath(seg string, err error) error {
	if pe, ok := err.(*PathError); ok {
		pe.Path = "$" + seg + pe.Path[1:]
		return pe
	}
	return &PathError{Path: "$" + seg, Err: err}
}

// Decoder options.
type Decoder struct {
	// AllowBin decodes MessagePack bin as []byte. When false a bin is an
	// error, because raw bytes are not a JSON value.
	AllowBin bool
	// Key, when set, is given each map key that is not a string and
	// returns the string key to use or an error, which Decode returns as
	// it is. The key comes decoded (nil, bool, int64, float64, []any, a
	// map, …), except that an unsigned 64-bit integer above the int64
	// range comes as a uint64. When nil such a key is an error.
	Key func(k any) (string, error)
}

// SyntaxError reports malformed MessagePack with the byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
	// NotJSON marks well-formed MessagePack holding a value JSON has no
	// form for (NaN, ±Inf, bin where bytes are not allowed): the message
	// is sound, its value is not.
	NotJSON bool
}

func (e *SyntaxError) Error() string {
	return "msgpack: " + e.Msg + " at byte " + strconv.Itoa(e.Offset)
}

// Decode decodes exactly one value filling all of data into canonical form.
func (d Decoder) Decode(data []byte) (any, error) {
	v, n, err := d.DecodeNext(data)
	if err != nil {
		return nil, err
	}
	if n != len(data) {
		return nil, &SyntaxError{Offset: n, Msg: fmt.Sprintf("%d bytes of trailing data after the value", len(data)-n)}
	}
	return v, nil
}

// DecodeNext decodes the first value in data and returns it with the number
// of bytes it used.
func (d Decoder) DecodeNext(data []byte) (any, int, error) {
	r := reader{buf: data, bin: d.AllowBin, keyFn: d.Key}
	v, err := r.value(0)
	return v, r.off, err
}

// DecodeValue decodes one value with default options (no bin).
func DecodeValue(data []byte) (any, error) { return Decoder{}.Decode(data) }

type reader struct {
	buf      []byte
	off      int
	bin      bool
	ext      bool // skip accepts extension types (SkipMessage)
	maxDepth int  // skip's depth limit; 0: MaxDepth
	// visit, when set, is told of each value skip meets (Walk).
	visit func(c byte, n int) bool
	keyFn func(k any) (string, error) // Decoder.Key
}

func (r *reader) fail(format string, args ...any) error {
	return &SyntaxError{Offset: r.off, Msg: fmt.Sprintf(format, args...)}
}

// failValue is fail for a value JSON cannot hold (SyntaxError.NotJSON).
func (r *reader) failValue(format string, args ...any) error {
	return &SyntaxError{Offset: r.off, Msg: fmt.Sprintf(format, args...), NotJSON: true}
}

func (r *reader) need(n int) ([]byte, error) {
	if n < 0 || len(r.buf)-r.off < n {
		return nil, r.fail("unexpected end of data (need %d more bytes, have %d)", n, len(r.buf)-r.off)
	}
	p := r.buf[r.off : r.off+n]
	r.off += n
	return p, nil
}

func (r *reader) uint(size int) (uint64, error) {
	p, err := r.need(size)
	if err != nil {
		return 0, err
	}
	switch size {
	case 1:
		return uint64(p[0]), nil
	case 2:
		return uint64(binary.BigEndian.Uint16(p)), nil
	case 4:
		return uint64(binary.BigEndian.Uint32(p)), nil
	}
	return binary.BigEndian.Uint64(p), nil
}

func (r *reader) str(n int) (string, error) {
	p, err := r.need(n)
	if err != nil {
		return "", err
	}
	return string(p), nil
}

func (r *reader) value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, r.fail("value nested deeper than %d levels", MaxDepth)
	}
	if r.off >= len(r.buf) {
		return nil, r.fail("unexpected end of data")
	}
	c := r.buf[r.off]
	r.off++
	switch {
	case c <= 0x7f:
		return int64(c), nil
	case c >= 0xe0:
		return int64(int8(c)), nil
	case c >= 0xa0 && c <= 0xbf:
		return r.str(int(c & 0x1f))
	case c >= 0x90 && c <= 0x9f:
		return r.array(int(c&0x0f), depth)
	case c >= 0x80 && c <= 0x8f:
		return r.mapN(int(c&0x0f), depth)
	}
	switch c {
	case 0xc0:
		return nil, nil
	case 0xc2:
		return false, nil
	case 0xc3:
		return true, nil
	case 0xcc, 0xcd, 0xce, 0xcf:
		u, err := r.uint(1 << (c - 0xcc))
		if err != nil {
			return nil, err
		}
		if u > math.MaxInt64 {
			return u, nil // exact: a canonical uint64
		}
		return int64(u), nil
	case 0xd0:
		u, err := r.uint(1)
		return int64(int8(u)), err
	case 0xd1:
		u, err := r.uint(2)
		return int64(int16(u)), err
	case 0xd2:
		u, err := r.uint(4)
		return int64(int32(u)), err
	case 0xd3:
		u, err := r.uint(8)
		return int64(u), err
	case 0xca, 0xcb:
		var f float64
		if c == 0xca {
			u, err := r.uint(4)
			if err != nil {
				return nil, err
			}
			f = float64(math.Float32frombits(uint32(u)))
		} else {
			u, err := r.uint(8)
			if err != nil {
				return nil, err
			}
			f = math.Float64frombits(u)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, r.failValue("%v is not a JSON number", f)
		}
		return f, nil
	case 0xd9, 0xda, 0xdb:
		n, err := r.uint(1 << (c - 0xd9))
		if err != nil {
			return nil, err
		}
		return r.str(int(n))
	case 0xc4, 0xc5, 0xc6:
		if !r.bin {
			return nil, r.failValue("raw bytes (bin) are not a JSON value here")
		}
		n, err := r.uint(1 << (c - 0xc4))
		if err != nil {
			return nil, err
		}
		p, err := r.need(int(n))
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), p...), nil
	case 0xdc, 0xdd:
		n, err := r.uint(2 << (c - 0xdc))
		if err != nil {
			return nil, err
		}
		return r.array(int(n), depth)
	case 0xde, 0xdf:
		n, err := r.uint(2 << (c - 0xde))
		if err != nil {
			return nil, err
		}
		return r.mapN(int(n), depth)
	}
	r.off--
	return nil, r.fail("type byte 0x%02x (extension or reserved) is not a JSON value", c)
}

func (r *reader) array(n, depth int) (any, error) {
	if n > len(r.buf)-r.off {
		return nil, r.fail("array of %d elements is longer than the remaining %d bytes", n, len(r.buf)-r.off)
	}
	out := make([]any, n)
	for i := range out {
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (r *reader) mapN(n, depth int) (any, error) {
	if n > (len(r.buf)-r.off)/2 {
		return nil, r.fail("map of %d pairs is longer than the remaining %d bytes", n, len(r.buf)-r.off)
	}
	out := make(map[string]any, n)
	for range n {
		k, err := r.key(depth)
		if err != nil {
			return nil, err
		}
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// otherKey decodes a map key that is not a string (type byte c) and
// gives it to Decoder.Key.
func (r *reader) otherKey(c byte, depth int) (string, error) {
	var k any
	if c == 0xcf {
		r.off++
		u, err := r.uint(8)
		if err != nil {
			return "", err
		}
		k = u
		if u <= math.MaxInt64 {
			k = int64(u)
		}
	} else {
		v, err := r.value(depth + 1)
		if err != nil {
			return "", err
		}
		k = v
	}
	return r.keyFn(k)
}

// internKey returns a constant for the keys every message uses, so
// decoding them allocates nothing.
func internKey(p []byte) (string, bool) {
	switch string(p) {
	case "id":
		return "id", true
	case "tool":
		return "tool", true
	case "params":
		return "params", true
	case "value":
		return "value", true
	case "error":
		return "error", true
	case "code":
		return "code", true
	case "message":
		return "message", true
	case "data":
		return "data", true
	case "caller":
		return "caller", true
	case "depth":
		return "depth", true
	case "space":
		return "space", true
	case "size":
		return "size", true
	case "result":
		return "result", true
	case "type":
		return "type", true
	case "name":
		return "name", true
	}
	return "", false
}

func (r *reader) key(depth int) (string, error) {
	if r.off >= len(r.buf) {
		return "", r.fail("unexpected end of data in map key")
	}
	c := r.buf[r.off]
	r.off++
	var n int
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c >= 0xd9 && c <= 0xdb:
		u, err := r.uint(1 << (c - 0xd9))
		if err != nil {
			return "", err
		}
		n = int(u)
	default:
		r.off--
		if r.keyFn != nil {
			return r.otherKey(c, depth)
		}
		return "", r.fail("map key of type byte 0x%02x is not a string", c)
	}
	p, err := r.need(n)
	if err != nil {
		return "", err
	}
	if s, ok := internKey(p); ok {
		return s, nil
	}
	return string(p), nil
}

package wire

import (
	"errors"
	"fmt"
)

// Skip returns the encoded length of the first value in data without
// decoding it (no allocation), so a reader can pick fields out of a map
// and hand on raw sub-values.
func Skip(data []byte) (int, error) {
	r := reader{buf: data, bin: true}
	if err := r.skip(0); err != nil {
		return 0, err
	}
	return r.off, nil
}

// SkipMessage is Skip for a whole message of the host's own codec
// (abi.MsgPack): it also accepts extension types (that codec writes
// time.Time as the timestamp extension) and nesting up to maxDepth levels.
// The host runs it before that codec's decoder, which allocates a
// container's declared length before reading any item and recurses without
// a limit, so that a few bytes declaring four billion items are refused
// here instead of ending the process.
func SkipMessage(data []byte, maxDepth int) (int, error) {
	r := reader{buf: data, bin: true, ext: true, maxDepth: maxDepth}
	if err := r.skip(0); err != nil {
		return 0, err
	}
	return r.off, nil
}

// ErrStopped is Walk's error when visit stopped the walk.
var ErrStopped = errors.New("wire: walk stopped")

// Walk is SkipMessage (extensions accepted, nesting up to MaxDepth) that
// tells visit of each value it meets, before its contents: c is the value's
// type byte and n the length of a string, binary or extension, the item
// count of an array or the pair count of a map (0 for other values). When
// visit returns false the walk stops with ErrStopped. It allocates nothing.
func Walk(data []byte, visit func(c byte, n int) bool) (int, error) {
	r := reader{buf: data, bin: true, ext: true, visit: visit}
	if err := r.skip(0); err != nil {
		return r.off, err
	}
	return r.off, nil
}

// seen reports a value to the walk's visitor.
func (r *reader) seen(c byte, n int) error {
	if r.visit != nil && !r.visit(c, n) {
		return ErrStopped
	}
	return nil
}

func (r *reader) skip(depth int) error {
	limit := MaxDepth
	if r.maxDepth > 0 {
		limit = r.maxDepth
	}
	if depth > limit {
		return r.fail("value nested deeper than %d levels", limit)
	}
	if r.off >= len(r.buf) {
		return r.fail("unexpected end of data")
	}
	c := r.buf[r.off]
	r.off++
	var n uint64
	var err error
	switch {
	case c <= 0x7f, c >= 0xe0, c == 0xc0, c == 0xc2, c == 0xc3:
		return r.seen(c, 0)
	case c >= 0xa0 && c <= 0xbf:
		if _, err = r.need(int(c & 0x1f)); err == nil {
			err = r.seen(c, int(c&0x1f))
		}
		return err
	case c >= 0x90 && c <= 0x9f:
		return r.container(c, int(c&0x0f), int(c&0x0f), depth)
	case c >= 0x80 && c <= 0x8f:
		return r.container(c, int(c&0x0f), 2*int(c&0x0f), depth)
	}
	switch c {
	case 0xcc, 0xcd, 0xce, 0xcf:
		if err = r.seen(c, 0); err == nil {
			_, err = r.need(1 << (c - 0xcc))
		}
	case 0xd0, 0xd1, 0xd2, 0xd3:
		if err = r.seen(c, 0); err == nil {
			_, err = r.need(1 << (c - 0xd0))
		}
	case 0xca:
		if err = r.seen(c, 0); err == nil {
			_, err = r.need(4)
		}
	case 0xcb:
		if err = r.seen(c, 0); err == nil {
			_, err = r.need(8)
		}
	case 0xd9, 0xda, 0xdb:
		if n, err = r.uint(1 << (c - 0xd9)); err == nil {
			if _, err = r.need(int(n)); err == nil {
				err = r.seen(c, int(n))
			}
		}
	case 0xc4, 0xc5, 0xc6:
		if n, err = r.uint(1 << (c - 0xc4)); err == nil {
			if _, err = r.need(int(n)); err == nil {
				err = r.seen(c, int(n))
			}
		}
	case 0xdc, 0xdd:
		if n, err = r.uint(2 << (c - 0xdc)); err == nil {
			err = r.container(c, int(n), int(n), depth)
		}
	case 0xde, 0xdf:
		if n, err = r.uint(2 << (c - 0xde)); err == nil {
			err = r.container(c, int(n), 2*int(n), depth)
		}
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8: // fixext 1..16: type byte and data
		if !r.ext {
			r.off--
			return r.fail("type byte 0x%02x (extension or reserved) is not a JSON value", c)
		}
		if _, err = r.need(1 + 1<<(c-0xd4)); err == nil {
			err = r.seen(c, 1<<(c-0xd4))
		}
	case 0xc7, 0xc8, 0xc9: // ext 8..32: length, type byte, data
		if !r.ext {
			r.off--
			return r.fail("type byte 0x%02x (extension or reserved) is not a JSON value", c)
		}
		if n, err = r.uint(1 << (c - 0xc7)); err == nil {
			if _, err = r.need(int(n) + 1); err == nil {
				err = r.seen(c, int(n))
			}
		}
	default:
		r.off--
		return r.fail("type byte 0x%02x (extension or reserved) is not a JSON value", c)
	}
	return err
}

// container skips an array (items values) or a map (pairs: items = 2 ×
// count), telling the visitor of it once its count fits the bytes left.
func (r *reader) container(c byte, count, items, depth int) error {
	if items < 0 || items > len(r.buf)-r.off {
		return r.fail("container of %d items is longer than the remaining %d bytes", items, len(r.buf)-r.off)
	}
	if err := r.seen(c, count); err != nil {
		return err
	}
	return r.skipN(items, depth)
}

func (r *reader) skipN(n, depth int) error {
	if n < 0 || n > len(r.buf)-r.off {
		return r.fail("container of %d items is longer than the remaining %d bytes", n, len(r.buf)-r.off)
	}
	for range n {
		if err := r.skip(depth + 1); err != nil {
			return err
		}
	}
	return nil
}

// MapIter walks the pairs of an encoded map without decoding the values.
type MapIter struct {
	r     reader
	left  int
	key   []byte
	value []byte
	err   error
}

// NewMapIter starts walking the map encoded at the start of data.
func NewMapIter(data []byte) (*MapIter, error) {
	it := &MapIter{}
	return it, it.Reset(data)
}

// Reset starts the iterator over data again (so one iterator can be reused
// without allocating).
func (it *MapIter) Reset(data []byte) error {
	*it = MapIter{r: reader{buf: data, bin: true}}
	if len(data) == 0 {
		return it.fail("empty message")
	}
	c := data[0]
	it.r.off = 1
	switch {
	case c >= 0x80 && c <= 0x8f:
		it.left = int(c & 0x0f)
	case c == 0xde || c == 0xdf:
		n, err := it.r.uint(2 << (c - 0xde))
		if err != nil {
			return it.fail(err.Error())
		}
		it.left = int(n)
	default:
		return it.fail(fmt.Sprintf("type byte 0x%02x is not a map", c))
	}
	return nil
}

func (it *MapIter) fail(msg string) error {
	it.err = &SyntaxError{Offset: it.r.off, Msg: msg}
	it.left = 0
	return it.err
}

// Next advances to the next pair; false at the end or on error (see Err).
func (it *MapIter) Next() bool {
	if it.left <= 0 || it.err != nil {
		return false
	}
	it.left--
	r := &it.r
	if r.off >= len(r.buf) {
		it.fail("unexpected end of data in map key")
		return false
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
			it.err = err
			return false
		}
		n = int(u)
	default:
		r.off--
		it.fail(fmt.Sprintf("map key of type byte 0x%02x is not a string", c))
		return false
	}
	k, err := r.need(n)
	if err != nil {
		it.err = err
		return false
	}
	start := r.off
	if err := r.skip(0); err != nil {
		it.err = err
		return false
	}
	it.key, it.value = k, r.buf[start:r.off]
	return true
}

// Key is the current key's bytes (valid while data is).
func (it *MapIter) Key() []byte { return it.key }

// Value is the current value, still encoded.
func (it *MapIter) Value() []byte { return it.value }

// Err reports a malformed map.
func (it *MapIter) Err() error { return it.err }

// MapField returns the encoded value of key in the map at the start of data.
func MapField(data []byte, key string) ([]byte, bool, error) {
	var it MapIter
	if err := it.Reset(data); err != nil {
		return nil, false, err
	}
	for it.Next() {
		if string(it.key) == key {
			return it.value, true, nil
		}
	}
	return nil, false, it.err
}

// ReadString decodes a str value (allocating only the string).
func ReadString(data []byte) (string, error) {
	b, err := StringBytes(data)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// StringBytes returns the bytes of the str value at the start of data,
// without copying them (valid while data is).
func StringBytes(data []byte) ([]byte, error) {
	r := reader{buf: data}
	if len(data) == 0 {
		return nil, r.fail("unexpected end of data")
	}
	c := data[0]
	r.off = 1
	var n int
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c >= 0xd9 && c <= 0xdb:
		u, err := r.uint(1 << (c - 0xd9))
		if err != nil {
			return nil, err
		}
		n = int(u)
	default:
		return nil, fmt.Errorf("msgpack: want a string, got type byte 0x%02x", c)
	}
	return r.need(n)
}

// Package jsonenc owns the allocation-free JSON string appender shared by
// the audit log (whose canonical records must re-encode byte for byte) and
// the Python runtime's hand-written call encoder.
//
// It is a leaf: it must never import anything from this module (abi
// included), so any package may use it without creating a cycle.
package jsonenc

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

const (
	lo7  = 0x0101010101010101
	hi7  = 0x8080808080808080
	quot = '"' * lo7
	back = '\\' * lo7
)

// load8 reads s[i:i+8] as a little-endian word (the compiler makes this
// one load).
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plain8 reports whether none of the eight bytes in x needs more than a
// copy: no control character (< 0x20), '"', '\\' or non-ASCII byte. The
// zero-byte test (v-lo7)&^v&hi7 is exact when no byte has its high bit
// set, which the first term rules out.
func plain8(x uint64) bool {
	if x&hi7 != 0 {
		return false
	}
	ctl := (x - 0x20*lo7) & ^x & hi7 // a byte below 0x20
	q := x ^ quot
	bs := x ^ back
	return ctl|((q-lo7)&^q&hi7)|((bs-lo7)&^bs&hi7) == 0
}

// AppendString appends s to b as a JSON string and returns the extended
// buffer; it allocates only when b must grow. Only '"', '\\' and control
// characters are escaped (\n \r \t, and \u00XX for the others). Each byte of
// invalid UTF-8 becomes U+FFFD, written as the UTF-8 character itself, which
// is what encoding/json decodes such a byte to: so a string read back with
// encoding/json and appended again gives the same bytes.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look (the common case:
		// identifiers, hashes, ASCII text), then the next eight (or the
		// rest) one character at a time.
		for i+8 <= len(s) && plain8(load8(s, i)) {
			i += 8
		}
		for end := min(i+8, len(s)); i < end; {
			c := s[i]
			if c < utf8.RuneSelf {
				i++
				if c >= 0x20 && c != '"' && c != '\\' {
					continue
				}
				b = append(b, s[start:i-1]...)
				switch c {
				case '"', '\\':
					b = append(b, '\\', c)
				case '\n':
					b = append(b, '\\', 'n')
				case '\r':
					b = append(b, '\\', 'r')
				case '\t':
					b = append(b, '\\', 't')
				default:
					b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				}
				start = i
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, "\ufffd"...)
				i++
				start = i
				continue
			}
			i += size
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// QuotedLen is the length of AppendString(nil, s) for s of valid UTF-8:
// its length, the quotes and what escapes add ('"', '\\', \n, \r and \t
// one byte each, other control characters five). It reads eight plain
// bytes at a time, as AppendString does, and allocates nothing.
func QuotedLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); {
		for i+8 <= len(s) && plain8(load8(s, i)) {
			i += 8
		}
		for end := min(i+8, len(s)); i < end; i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n++
			case c < 0x20:
				n += 5
			}
		}
	}
	return n
}

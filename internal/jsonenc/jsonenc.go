// Package jsonenc owns the allocation-free JSON string appender shared by
// the audit log (whose canonical records must re-encode byte for byte) and
// the Python runtime's hand-written call encoder.
//
// It is a leaf: it must never import anything from this module (abi
// included), so any package may use it without creating a cycle.
package jsonenc

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

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
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
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
			i++
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
	b = append(b, s[start:]...)
	return append(b, '"')
}

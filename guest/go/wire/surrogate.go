package wire

import "bytes"

// LoneSurrogate returns the offset of the first `\uXXXX` escape in JSON
// text b that encodes half of a UTF-16 surrogate pair without its other
// half (`"\ud800"`, `"\udc00x"`), or -1 when there is none. Such a string
// has no UTF-8 form: encoding/json reads the escape as U+FFFD, so two
// member names {"\ud800": 1, "\udc00": 2} become one and a member is lost
// without a word, as with invalid UTF-8 bytes. b must be valid JSON.
func LoneSurrogate(b []byte) int {
	if !bytes.Contains(b, []byte(`\ud`)) && !bytes.Contains(b, []byte(`\uD`)) {
		return -1
	}
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !in {
			if c == '"' {
				in = true
			}
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			if i+1 < len(b) && b[i+1] == 'u' {
				u, ok := hex4(b, i+2)
				switch {
				case !ok:
				case u >= 0xd800 && u < 0xdc00:
					if i+11 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
						if l, ok := hex4(b, i+8); ok && l >= 0xdc00 && l < 0xe000 {
							i += 11
							continue
						}
					}
					return i
				case u >= 0xdc00 && u < 0xe000:
					return i
				}
				i += 5
			} else {
				i++
			}
		}
	}
	return -1
}

// hex4 reads the four hex digits of b at i.
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
)

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

// InvalidUTF8 returns the offset of the first byte of b that does not
// begin a valid UTF-8 sequence, or -1 when b is valid UTF-8.
func InvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
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

// LoneSurrogateMessage says what is wrong with JSON text b whose lone
// surrogate escape LoneSurrogate found at offset i.
func LoneSurrogateMessage(b []byte, i int) string {
	return fmt.Sprintf("the message holds %s at offset %d, half of a UTF-16 surrogate pair without its other half: it has no Unicode form (JSON text must be Unicode; it would be read as U+FFFD, another string)", b[i:i+6], i)
}

// UnmarshalGuestJSON decodes JSON text a guest wrote (a component's JSON
// tool result, its call-tool params-json) into canonical form, refusing
// text that is not Unicode: an invalid UTF-8 byte or an escaped lone
// surrogate, which encoding/json reads as U+FFFD (two member names
// becoming one, a value lost).
func UnmarshalGuestJSON(data []byte, out *any) error {
	if err := NotUnicodeText(data); err != nil {
		return err
	}
	return abi.UnmarshalJSONValue(data, out)
}

// NotUnicodeText returns an error saying what makes JSON text data other
// than Unicode text (an invalid UTF-8 byte, an escaped lone surrogate),
// or nil.
func NotUnicodeText(data []byte) error {
	if i := InvalidUTF8(data); i >= 0 {
		return fmt.Errorf("the JSON text is not valid UTF-8 (byte 0x%02x at offset %d)", data[i], i)
	}
	if json.Valid(data) {
		if i := LoneSurrogate(data); i >= 0 {
			return fmt.Errorf("the JSON text holds %s at offset %d, half of a UTF-16 surrogate pair without its other half: it has no Unicode form", data[i:i+6], i)
		}
	}
	return nil
}

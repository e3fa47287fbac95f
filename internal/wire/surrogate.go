package wire

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	mpw "github.com/aios-host/aios-host/guest/go/wire"
)

// LoneSurrogate returns the offset of the first `\uXXXX` escape in JSON
// text b that encodes half of a UTF-16 surrogate pair without its other
// half, or -1 when there is none (guest/go/wire.LoneSurrogate, which abi
// uses too).
func LoneSurrogate(b []byte) int { return mpw.LoneSurrogate(b) }

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

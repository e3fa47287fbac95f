package jsonenc

import (
	"strconv"
	"unicode/utf8"
)

// MemberPath is the path of member key of the object at path, for error
// messages: path.key for a plain word (letters, digits, '-', '_', '$'),
// else path["key"] quoted. A member name is any string, and written as it
// is "a.b" read as two levels and a line break split the message over
// lines (abi's value paths, wit's map keys).
func MemberPath(path, key string) string {
	if key == "" {
		return path + `[""]`
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '$') {
			return path + "[" + strconv.Quote(key) + "]"
		}
	}
	return path + "." + key
}

// FirstInvalid is the offset of the first byte of s that is not valid
// UTF-8 (len(s) when there is none), for errors that name it.
func FirstInvalid(s string) int {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	return i
}

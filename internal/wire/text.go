package wire

import "unicode/utf8"

// CutText is s cut to at most n bytes, not inside a UTF-8 sequence, with
// mark after it when it was cut ("…"): the one cut of text that reaches a
// caller, a log or a record (an error message, a server's words).
func CutText(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}

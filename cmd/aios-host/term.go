package main

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// termText returns s for a terminal: every character strconv.IsPrint
// refuses but a newline and a tab is written as its Go escape (ESC as
// \x1b, a bidi override as \u202e, an invalid byte as \xff), so text a
// plugin or tool chose (a description, an error message) cannot set the
// terminal's title, move its cursor, erase what was printed or reorder
// what follows. Text without such characters is returned as it is.
func termText(s string) string { return termEscape(s, true) }

// termCell is termText for one cell of a table or one line: a newline and
// a tab are escaped too (\n, \t), so the text cannot start a line or
// shift the columns.
func termCell(s string) string { return termEscape(s, false) }

func termEscape(s string, lines bool) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !termKeeps(r, size, lines) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	out := make([]byte, 0, len(s)+16)
	out = append(out, s[:i]...)
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case termKeeps(r, size, lines):
			out = append(out, s[i:i+size]...)
		case r == '\n':
			out = append(out, `\n`...)
		case r == '\t':
			out = append(out, `\t`...)
		case r == utf8.RuneError || r < 0x80:
			out = fmt.Appendf(out, `\x%02x`, s[i])
		case r <= 0xFFFF:
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = fmt.Appendf(out, `\U%08x`, r)
		}
		i += size
	}
	return string(out)
}

// termKeeps reports whether the rune r of size bytes is printed as it is
// (a newline and a tab when lines).
func termKeeps(r rune, size int, lines bool) bool {
	if r == utf8.RuneError && size == 1 {
		return false
	}
	return lines && (r == '\n' || r == '\t') || strconv.IsPrint(r)
}

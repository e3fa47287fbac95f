package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ecmaSyntax checks that p is an ECMA-262 pattern and rewrites the two
// constructs regexp2's ECMAScript mode reads otherwise than ECMA-262's u
// flag does.
//
// regexp2 is .NET's engine: in ECMAScript mode it still reads .NET syntax
// ECMA-262 has not, giving it .NET's meaning where ECMA-262 refuses the
// pattern or reads something else: inline options ((?i), (?s), (?x)),
// comments ((?#…)), atomic and conditional groups, the anchors \A \Z \z \G,
// the escapes \e \a, octal escapes (\07, and \2 with one group),
// character class subtraction ([a-z-[aeiou]]) and POSIX classes
// ([[:alpha:]]), a quantifier of nothing
// (^*) or of a look-around. Those are refused, naming the construct. Two
// constructs keep the ECMA-262 meaning by rewriting: '.' outside a class
// matches no line terminator (regexp2 matched U+2028 and U+2029), and \b
// \B take only ASCII letters, digits and _ as word characters, as without
// the i flag (regexp2 took é for one).
//
// Lenient where ECMA-262 without the u flag (Annex B) and regexp2 agree: an
// escaped punctuation character (\-, \", \#) is that character, a '{' that
// starts no quantifier and a lone ']' or '}' are literal, and a class
// escape as a range's end ([\d-z]) makes '-' literal.
func ecmaSyntax(p string) (string, error) {
	if len(p) > maxPatternLen {
		return "", fmt.Errorf("the pattern is %d bytes, more than %d (regexp2's compile time grows faster than its length)", len(p), maxPatternLen)
	}
	groups := countGroups(p)
	if groups > maxPatternGroups {
		return "", fmt.Errorf("the pattern has %d capturing groups, more than %d (regexp2's compile time grows with their square); write (?:…) for a group not referred to", groups, maxPatternGroups)
	}
	var sb strings.Builder
	rewrote := false
	// quantifiable: the last term can take a quantifier.
	quantifiable := false
	// lookaround holds, for each open group, whether it is a look-around.
	var lookaround []bool
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' {
			n, err := ecmaEscape(p, i, inClass, groups)
			if err != nil {
				return "", err
			}
			e := p[i+1]
			if !inClass && (e == 'b' || e == 'B') {
				// \w is ASCII in regexp2's ECMAScript mode.
				if e == 'b' {
					sb.WriteString(`(?:(?<=\w)(?!\w)|(?<!\w)(?=\w))`)
				} else {
					sb.WriteString(`(?:(?<=\w)(?=\w)|(?<!\w)(?!\w))`)
				}
				rewrote = true
				quantifiable = false
			} else {
				sb.WriteString(p[i : i+n])
				quantifiable = true
			}
			i += n - 1
			continue
		}
		if inClass {
			switch {
			case c == ']':
				inClass = false
			case c == '[' && (p[i-1] == '-' && !escaped(p, i-1) || i+1 < len(p) && p[i+1] == ':'):
				return "", fmt.Errorf("%q inside a character class (at byte %d) is read by regexp2 as .NET's class subtraction or a POSIX class, by ECMA-262 as the characters themselves: write '[' as \\[", p[i-1:min(i+2, len(p))], i-1)
			}
			sb.WriteByte(c)
			continue
		}
		switch c {
		case '[':
			inClass = true
			sb.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				sb.WriteByte('^')
				i++
			}
			// ECMA-262: a ']' right after "[" or "[^" ends the class
			// ([] matches nothing, [^] any character), as regexp2 reads it.
			if i+1 < len(p) && p[i+1] == ']' {
				sb.WriteByte(']')
				i++
				inClass = false
			}
			quantifiable = true
			continue
		case '.':
			sb.WriteString(`[^\n\r\u2028\u2029]`)
			rewrote = true
			quantifiable = true
			continue
		case '(':
			look := false
			open := 1 // the opener's length: (, (?:, (?=, (?<name>, …
			if i+1 < len(p) && p[i+1] == '?' {
				rest := p[i+2:]
				switch {
				case strings.HasPrefix(rest, ":"), strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"):
					look = rest[0] != ':'
					open = 3
				case strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
					look = true
					open = 4
				case strings.HasPrefix(rest, "<"):
					end := strings.IndexByte(rest, '>')
					if end < 0 || !groupName(rest[1:end]) {
						return "", fmt.Errorf("%q (at byte %d) is not an ECMA-262 group: a named group is (?<name>…), name an identifier", construct(p[i:]), i)
					}
					open = 3 + end
				default:
					return "", fmt.Errorf("%q (at byte %d) is not ECMA-262 syntax (a group starts (, (?:, (?=, (?!, (?<=, (?<! or (?<name>; inline flags, comments, atomic and conditional groups are .NET's or RE2's)", construct(p[i:]), i)
				}
			}
			lookaround = append(lookaround, look)
			if len(lookaround) > maxPatternDepth {
				return "", fmt.Errorf("the pattern nests groups more than %d deep (at byte %d; regexp2's compile time grows with the square of the depth: 100 000 nested look-aheads took minutes)", maxPatternDepth, i)
			}
			quantifiable = false
			sb.WriteString(p[i : i+open])
			i += open - 1
			continue
		case ')':
			quantifiable = true
			if len(lookaround) > 0 {
				quantifiable = !lookaround[len(lookaround)-1]
				lookaround = lookaround[:len(lookaround)-1]
			}
		case '|', '^', '$':
			quantifiable = false
		case '*', '+', '?', '{':
			end := i
			if c == '{' {
				end = quantifierEnd(p, i)
				if end < 0 {
					// Not a quantifier: a literal '{' (Annex B).
					quantifiable = true
					break
				}
			}
			if !quantifiable {
				return "", fmt.Errorf("quantifier %q (at byte %d) repeats nothing: it follows the start of the pattern or of a group, '|', an assertion (^ $ \\b \\B) or a look-around, or another quantifier", p[i:end+1], i)
			}
			if c == '{' {
				if err := quantifierOrder(p[i : end+1]); err != nil {
					return "", err
				}
			}
			sb.WriteString(p[i : end+1])
			i = end
			if i+1 < len(p) && p[i+1] == '?' {
				sb.WriteByte('?')
				i++
			}
			quantifiable = false
			continue
		default:
			quantifiable = true
		}
		sb.WriteByte(c)
	}
	if !rewrote {
		return p, nil
	}
	return sb.String(), nil
}

// Bounds of one pattern, far above what a pattern is written with, so
// that a schema's patterns cannot hold its registration for minutes: regexp2
// compiled 8 000 nested look-aheads in 1.5 s, 100 000 in over six minutes,
// 100 000 capturing groups side by side in a second.
const (
	maxPatternLen    = 64 << 10
	maxPatternDepth  = 128
	maxPatternGroups = 1000
)

// ecmaEscape checks the escape at p[i] == '\\' and returns its length.
func ecmaEscape(p string, i int, inClass bool, groups int) (int, error) {
	if i+1 >= len(p) {
		return 0, fmt.Errorf("the pattern ends with a lone '\\'")
	}
	e := p[i+1]
	bad := func(why string) (int, error) {
		return 0, fmt.Errorf("%q (at byte %d) is not an ECMA-262 escape%s", construct(p[i:]), i, why)
	}
	switch {
	case strings.IndexByte("dDsSwWfnrtv", e) >= 0:
		return 2, nil
	case e == 'b':
		return 2, nil
	case e == 'B':
		if inClass {
			return bad(" inside a character class")
		}
		return 2, nil
	case e == 'c':
		if i+2 < len(p) && isASCIILetter(p[i+2]) {
			return 3, nil
		}
		return bad(` (\c takes a letter, \cJ)`)
	case e == 'x':
		if i+3 < len(p) && isHex(p[i+2]) && isHex(p[i+3]) {
			return 4, nil
		}
		return bad(` (\x takes two hex digits, \x41)`)
	case e == 'u':
		if i+5 < len(p) && isHex(p[i+2]) && isHex(p[i+3]) && isHex(p[i+4]) && isHex(p[i+5]) {
			return 6, nil
		}
		if i+2 < len(p) && p[i+2] == '{' {
			if j := strings.IndexByte(p[i+3:], '}'); j > 0 {
				v, err := strconv.ParseUint(p[i+3:i+3+j], 16, 32)
				if err == nil && v <= 0x10FFFF {
					return 4 + j, nil
				}
			}
		}
		return bad(` (\u takes four hex digits, \u0041, or a code point, \u{1F600})`)
	case e == 'p' || e == 'P':
		if i+2 < len(p) && p[i+2] == '{' {
			if j := strings.IndexByte(p[i+3:], '}'); j > 0 {
				return 4 + j, nil
			}
		}
		return bad(` (\p takes a property in braces, \p{L})`)
	case e == 'k':
		if !inClass && i+2 < len(p) && p[i+2] == '<' {
			if j := strings.IndexByte(p[i+3:], '>'); j >= 0 && groupName(p[i+3:i+3+j]) {
				return 4 + j, nil
			}
		}
		return bad(` (\k<name> refers to a named group)`)
	case e == '0':
		if i+2 < len(p) && p[i+2] >= '0' && p[i+2] <= '9' {
			return bad(" (octal escapes are not ECMA-262 with the u flag; write \\x07 or \\u0007)")
		}
		return 2, nil
	case e >= '1' && e <= '9':
		j := i + 1
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
		if inClass {
			return bad(" inside a character class (regexp2 reads it as an octal escape)")
		}
		n, err := strconv.Atoi(p[i+1 : j])
		if err != nil || n > groups {
			return 0, fmt.Errorf("%q (at byte %d) refers to group %s, and the pattern has %d capturing groups (regexp2 read it as an octal escape)", p[i:j], i, p[i+1:j], groups)
		}
		return j - i, nil
	case isASCIILetter(e):
		return 0, fmt.Errorf("%q (at byte %d) is not an ECMA-262 escape%s", p[i:i+2], i, " (regexp2 gives it a .NET meaning, ECMA-262 none: \\A \\z \\Z \\G are anchors there, \\e an escape character)")
	}
	// An escaped punctuation or other character is itself.
	if e >= 0x80 {
		_, size := utf8.DecodeRuneInString(p[i+1:])
		return 1 + size, nil
	}
	return 2, nil
}

// escaped reports whether p[i] is escaped (follows an odd number of '\\').
func escaped(p string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && p[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// countGroups counts p's capturing groups: '(' not followed by '?', and
// named groups.
func countGroups(p string) int {
	n := 0
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
				inClass = false
			}
		case c == '(':
			rest := p[i+1:]
			if !strings.HasPrefix(rest, "?") || (strings.HasPrefix(rest, "?<") && !strings.HasPrefix(rest, "?<=") && !strings.HasPrefix(rest, "?<!")) {
				n++
			}
		}
	}
	return n
}

// quantifierOrder refuses {n,m} with m < n, and a count regexp2 cannot
// hold (it said "capture group number out of range").
func quantifierOrder(q string) error {
	lo, hi, _ := strings.Cut(q[1:len(q)-1], ",")
	for _, n := range []string{lo, hi} {
		if n == "" {
			continue
		}
		if c, err := strconv.ParseUint(n, 10, 64); err != nil || c > math.MaxInt32 {
			return fmt.Errorf("quantifier %s counts beyond %d, the most regexp2 repeats (no string the host takes is that long): write {n,} or a smaller count", q, math.MaxInt32)
		}
	}
	if hi == "" {
		return nil
	}
	a, _ := strconv.ParseUint(lo, 10, 64)
	b, _ := strconv.ParseUint(hi, 10, 64)
	if b < a {
		return fmt.Errorf("quantifier %s has its numbers out of order", q)
	}
	return nil
}

// groupName reports whether s is an identifier (a group's name).
func groupName(s string) bool {
	if s == "" {
		return false
	}
	for k, r := range s {
		switch {
		case r == '$' || r == '_' || r >= 0x80 || isASCIILetter(byte(r)):
		case k > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}

// construct is the start of p quoted in an error: up to its fourth
// character.
func construct(p string) string {
	n := 0
	for k := range p {
		if n == 4 {
			return p[:k] + "…"
		}
		n++
	}
	return p
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

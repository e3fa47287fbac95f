package schema

import (
	"regexp"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// patternTimeout bounds one ECMA pattern match, so a catastrophic
// backtracking pattern cannot stall a call. A timed-out match counts as no
// match (the value is rejected).
const patternTimeout = 100 * time.Millisecond

// ecmaPattern adapts regexp2 (ECMAScript mode) to the reference's Regexp.
type ecmaPattern struct{ re *regexp2.Regexp }

func (p ecmaPattern) String() string { return p.re.String() }

func (p ecmaPattern) MatchString(s string) bool {
	ok, err := p.re.MatchString(s)
	return err == nil && ok
}

// ecmaRegexp is the reference's regexp engine: JSON Schema patterns are
// ECMA-262 regular expressions, which Go's regexp does not fully implement
// (look-around, back references). They are built with the "u" flag, as
// JSON Schema 2020-12 (core §6.4) asks: \p{L} is a Unicode property and
// \u{1F600} a code point, not the literals "p{L}" and "u…u".
func ecmaRegexp(s string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(s, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = patternTimeout
	return ecmaPattern{re}, nil
}

// goPattern compiles p with Go's regexp when p stays inside a subset where
// Go (RE2) and ECMA-262 agree on every string; otherwise it returns nil and
// the schema uses the reference validator.
//
// The subset: literal characters; ^ $ | ( ) (?: ; the quantifiers * + ? and
// {n} {n,} {n,m} with their lazy forms; \d \D \w \W; escapes of syntax
// characters and \n \r \t \f \v; bracket classes of those without nested '['
// and not starting with ']'. Excluded because the two dialects differ: '.'
// (line terminators), \s \S (the white space set), \b \B (regexp2 counts
// non-ASCII letters as word characters there), \p, \u, \x, back
// references, look-around, named groups, inline flags.
func goPattern(p string) *regexp.Regexp {
	if !goSafe(p) {
		return nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	return re
}

func goSafe(p string) bool {
	inClass := false
	classStart := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' {
			if i+1 >= len(p) {
				return false
			}
			i++
			e := p[i]
			switch {
			case e == 'd' || e == 'D' || e == 'w' || e == 'W':
			case e == 'n' || e == 'r' || e == 't' || e == 'f' || e == 'v':
			case isSyntaxChar(e):
			default:
				return false
			}
			classStart = false
			continue
		}
		if inClass {
			switch c {
			case ']':
				if classStart {
					return false
				}
				inClass = false
			case '[':
				return false
			}
			classStart = false
			continue
		}
		switch c {
		case '.':
			return false
		case '[':
			inClass, classStart = true, true
			if i+1 < len(p) && p[i+1] == '^' {
				i++ // negation; a ']' right after it is still refused
			}
		case '(':
			if i+1 < len(p) && p[i+1] == '?' {
				if i+2 >= len(p) || p[i+2] != ':' {
					return false
				}
				i += 2
			}
		case '{':
			j := quantifierEnd(p, i)
			if j < 0 {
				return false
			}
			i = j
		}
	}
	return !inClass
}

// quantifierEnd returns the index of the '}' closing a {n}, {n,} or {n,m}
// quantifier that starts at p[i] == '{', or -1.
func quantifierEnd(p string, i int) int {
	j := i + 1
	digits := 0
	for j < len(p) && p[j] >= '0' && p[j] <= '9' {
		j++
		digits++
	}
	if digits == 0 || j >= len(p) {
		return -1
	}
	if p[j] == ',' {
		j++
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
	}
	if j < len(p) && p[j] == '}' {
		return j
	}
	return -1
}

func isSyntaxChar(c byte) bool {
	switch c {
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/', '-':
		return true
	}
	return false
}

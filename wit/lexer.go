package wit

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Position is a place in a WIT source file; Line and Col are 1-based, Col
// counts Unicode scalar values.
type Position struct {
	File      string
	Line, Col int
}

func (p Position) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a WIT syntax or resolution error at a position.
type Error struct {
	Pos Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errAt(p Position, format string, args ...any) *Error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tKeyword
	tInt
	tString
	tPunct // = , : ; ( ) { } < > * -> / . @ _
)

type token struct {
	kind tokKind
	text string // identifier (without %), keyword, digits, string value, punctuation
	pos  Position
	off  int // byte offset of the token start
	end  int // byte offset after the token
	docs string
	// explicit is true for a %-escaped identifier
	explicit bool
	// spaceBefore is true when whitespace or a comment preceded the token
	spaceBefore bool
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "eof"
	case tIdent:
		return "identifier `" + t.text + "`"
	case tKeyword:
		return "keyword `" + t.text + "`"
	case tInt:
		return "integer `" + t.text + "`"
	case tString:
		return "string literal"
	}
	return "'" + t.text + "'"
}

var keywords = map[string]bool{
	"as": true, "async": true, "bool": true, "borrow": true, "char": true, "constructor": true,
	"enum": true, "export": true, "f32": true, "f64": true, "flags": true, "from": true,
	"func": true, "future": true, "import": true, "include": true, "interface": true,
	"list": true, "map": true, "option": true, "own": true, "package": true, "record": true,
	"resource": true, "result": true, "s16": true, "s32": true, "s64": true, "s8": true,
	"static": true, "stream": true, "string": true, "tuple": true, "type": true, "u16": true,
	"u32": true, "u64": true, "u8": true, "use": true, "variant": true, "with": true,
	"world": true, "error-context": true,
}

type lexer struct {
	file string
	src  string
	off  int
	line int
	col  int
}

func newLexer(file, src string) *lexer {
	l := &lexer{file: file, src: src, line: 1, col: 1}
	if strings.HasPrefix(src, "\ufeff") {
		l.off = len("\ufeff") // a UTF-8 byte order mark, as editors on Windows write; not a column
	}
	return l
}

func (l *lexer) pos() Position { return Position{File: l.file, Line: l.line, Col: l.col} }

// advance moves over one rune.
func (l *lexer) advance() rune {
	r, n := utf8.DecodeRuneInString(l.src[l.off:])
	l.off += n
	if r == '\n' {
		l.line++
		l.col = 1
	} else {
		l.col++
	}
	return r
}

func (l *lexer) peekByte(i int) byte {
	if l.off+i < len(l.src) {
		return l.src[l.off+i]
	}
	return 0
}

// badRune tells the characters WIT source may not hold (as wasm-tools'
// detect_invalid_input): control codes but tab, newline and carriage
// return (C1 ones too), bidirectional overrides, and code points Unicode
// deprecates or discourages. Invalid UTF-8 is refused before lexing
// (checkUTF8): U+FFFD itself is an ordinary character.
func badRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidirectional overrides
	case r == 0x149, r == 0x673, r == 0xf77, r == 0xf79, r == 0x17a3, r == 0x17a4, r == 0x17b4, r == 0x17b5:
		return true // deprecated or discouraged
	}
	return false
}

// checkUTF8 refuses src unless it is valid UTF-8, naming where it is not.
func checkUTF8(file, src string) error {
	if utf8.ValidString(src) {
		return nil
	}
	p := Position{File: file, Line: 1, Col: 1}
	for i, r := range src {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(src[i:]); n == 1 {
				return errAt(p, "invalid UTF-8")
			}
		}
		if r == '\n' {
			p.Line++
			p.Col = 1
		} else {
			p.Col++
		}
	}
	return errAt(p, "invalid UTF-8")
}

// skip skips whitespace and comments, collecting doc comments.
func (l *lexer) skip() (docs string, space bool, err error) {
	var doc []string
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.advance()
			space = true
		case c == '/' && l.peekByte(1) == '/':
			start := l.off
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				p := l.pos()
				if r := l.advance(); badRune(r) {
					return "", space, errAt(p, "invalid character %U in comment", r)
				}
			}
			text := l.src[start:l.off]
			if strings.HasPrefix(text, "///") && !strings.HasPrefix(text, "////") {
				doc = append(doc, strings.TrimPrefix(strings.TrimPrefix(strings.TrimRight(text[3:], "\r"), " "), ""))
			}
			space = true
		case c == '/' && l.peekByte(1) == '*':
			p := l.pos()
			start := l.off
			l.advance()
			l.advance()
			depth := 1
			for depth > 0 {
				if l.off >= len(l.src) {
					return "", space, errAt(p, "unterminated block comment")
				}
				if l.src[l.off] == '*' && l.peekByte(1) == '/' {
					l.advance()
					l.advance()
					depth--
					continue
				}
				if l.src[l.off] == '/' && l.peekByte(1) == '*' {
					l.advance()
					l.advance()
					depth++
					continue
				}
				q := l.pos()
				if r := l.advance(); badRune(r) && r != '\t' {
					return "", space, errAt(q, "invalid character %U in comment", r)
				}
			}
			text := l.src[start:l.off]
			if strings.HasPrefix(text, "/**") && text != "/**/" && !strings.HasPrefix(text, "/***") {
				body := strings.TrimSuffix(text[3:], "*/")
				for _, ln := range strings.Split(body, "\n") {
					ln = strings.TrimSpace(ln)
					ln = strings.TrimPrefix(ln, "* ")
					if ln == "*" {
						ln = ""
					}
					doc = append(doc, ln)
				}
				for len(doc) > 0 && doc[0] == "" {
					doc = doc[1:]
				}
				for len(doc) > 0 && doc[len(doc)-1] == "" {
					doc = doc[:len(doc)-1]
				}
			}
			space = true
		default:
			return strings.Join(doc, "\n"), space, nil
		}
	}
	return strings.Join(doc, "\n"), space, nil
}

func isIdentStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '-'
}

// next returns the next token.
func (l *lexer) next() (token, error) {
	docs, space, err := l.skip()
	if err != nil {
		return token{}, err
	}
	t := token{pos: l.pos(), off: l.off, docs: docs, spaceBefore: space}
	if l.off >= len(l.src) {
		t.kind = tEOF
		t.end = l.off
		return t, nil
	}
	c := l.src[l.off]
	switch {
	case c == '%' || isIdentStart(c):
		if c == '%' {
			l.advance()
			t.explicit = true
			if l.off >= len(l.src) || !isIdentStart(l.src[l.off]) {
				return t, errAt(t.pos, "expected an identifier after '%%'")
			}
		}
		s := l.off
		for l.off < len(l.src) && isIdentChar(l.src[l.off]) {
			l.advance()
		}
		t.text = l.src[s:l.off]
		t.kind = tIdent
		if !t.explicit && keywords[t.text] {
			t.kind = tKeyword
		}
		if err := validateID(t.text); err != nil {
			return t, errAt(t.pos, "%v", err)
		}
	case c >= '0' && c <= '9':
		s := l.off
		for l.off < len(l.src) && l.src[l.off] >= '0' && l.src[l.off] <= '9' {
			l.advance()
		}
		t.kind = tInt
		t.text = l.src[s:l.off]
	case c == '"':
		l.advance()
		var b strings.Builder
		for {
			if l.off >= len(l.src) || l.src[l.off] == '\n' {
				return t, errAt(t.pos, "unterminated string literal")
			}
			p := l.pos()
			r := l.advance()
			if r == '"' {
				break
			}
			if badRune(r) {
				return t, errAt(p, "invalid character %U in string literal", r)
			}
			b.WriteRune(r)
		}
		t.kind = tString
		t.text = b.String()
	case c == '-' && l.peekByte(1) == '>':
		l.advance()
		l.advance()
		t.kind = tPunct
		t.text = "->"
	case strings.IndexByte("=,:;(){}<>*/.@_", c) >= 0:
		l.advance()
		t.kind = tPunct
		t.text = string(c)
	default:
		r, _ := utf8.DecodeRuneInString(l.src[l.off:])
		if badRune(r) {
			return t, errAt(t.pos, "invalid character %U", r)
		}
		return t, errAt(t.pos, "unexpected character %q", r)
	}
	t.end = l.off
	return t, nil
}

// version scans a semantic version starting at the current offset (directly
// after an '@'): MAJOR.MINOR.PATCH[-PRE][+BUILD]. A '.' not followed by an
// identifier character ends the version (as in `a:b/c@1.0.0.{x}`).
func (l *lexer) version() (string, Position, error) {
	p := l.pos()
	s := l.off
	num := func() bool {
		st := l.off
		for l.off < len(l.src) && l.src[l.off] >= '0' && l.src[l.off] <= '9' {
			l.advance()
		}
		if l.off == st {
			return false
		}
		if _, err := strconv.ParseUint(l.src[st:l.off], 10, 64); err != nil {
			return false // over 2^64-1, as the semver crate
		}
		return !(l.off-st > 1 && l.src[st] == '0')
	}
	for i := 0; i < 3; i++ {
		if i > 0 {
			if l.peekByte(0) != '.' {
				return "", p, errAt(l.pos(), "expected '.' in version")
			}
			l.advance()
		}
		if !num() {
			return "", p, errAt(p, "invalid version: expected MAJOR.MINOR.PATCH")
		}
	}
	ids := func(pre bool) error {
		for {
			st := l.off
			digits := true
			for l.off < len(l.src) && (isIdentChar(l.src[l.off])) {
				digits = digits && l.src[l.off] >= '0' && l.src[l.off] <= '9'
				l.advance()
			}
			if l.off == st {
				return errAt(l.pos(), "invalid version: empty pre-release or build identifier")
			}
			// SemVer 2.0 §9: numeric pre-release identifiers have no
			// leading zeros (build metadata may).
			if pre && digits && l.off-st > 1 && l.src[st] == '0' {
				return errAt(p, "invalid version: pre-release identifier %q has a leading zero", l.src[st:l.off])
			}
			if l.peekByte(0) == '.' && isIdentChar(l.peekByte(1)) {
				l.advance()
				continue
			}
			return nil
		}
	}
	if l.peekByte(0) == '-' {
		l.advance()
		if err := ids(true); err != nil {
			return "", p, err
		}
	}
	if l.peekByte(0) == '+' {
		l.advance()
		if err := ids(false); err != nil {
			return "", p, err
		}
	}
	return l.src[s:l.off], p, nil
}

// ValidateLabel checks that s is a kebab-case label, as a component's
// record fields, variant and enum cases, flags and parameters must be
// (component type validation; the same rule as WIT identifiers).
func ValidateLabel(s string) error { return validateID(s) }

// validateID checks kebab-case: words separated by single '-', each word
// all-lowercase or all-uppercase letters and digits, the first word
// starting with a letter.
func validateID(s string) error {
	if s == "" {
		return fmt.Errorf("empty identifier")
	}
	for k, w := range strings.Split(s, "-") {
		if w == "" {
			return fmt.Errorf("identifier %q is not kebab-case: empty word (leading, trailing or double '-')", s)
		}
		// Only the first word must start with a letter: the label
		// grammar (Explainer.md, component-model#592) and wasm-tools
		// accept `sha-256` and `a1-2-3`.
		if k == 0 && !isIdentStart(w[0]) {
			return fmt.Errorf("identifier %q is not kebab-case: word %q does not start with a letter", s, w)
		}
		var lower, upper bool
		for i := 0; i < len(w); i++ {
			c := w[i]
			switch {
			case c >= '0' && c <= '9':
			case c >= 'a' && c <= 'z':
				lower = true
			case c >= 'A' && c <= 'Z':
				upper = true
			default:
				return fmt.Errorf("identifier %q is not kebab-case: word %q holds %q", s, w, c)
			}
			if lower && upper {
				return fmt.Errorf("identifier %q is not kebab-case: word %q mixes upper and lower case", s, w)
			}
		}
	}
	return nil
}

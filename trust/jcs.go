package trust

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON Canonicalization Scheme (RFC 8785)
//
// Canonicalize reads one JSON text and writes its canonical form:
//   - no white space between tokens;
//   - object members sorted by their names compared as arrays of UTF-16 code
//     units (RFC 8785 §3.2.3), recursively;
//   - strings with only the escapes JSON requires: \" \\ \b \f \n \r \t and
//     \u00XX (lower-case hex) for the other control characters; everything
//     else, including non-ASCII and U+2028/U+2029, as literal UTF-8;
//   - numbers as IEEE 754 doubles serialized like ECMAScript's
//     Number.prototype.toString (RFC 8785 §3.2.2.3), so 1.0 → 1, 1e30 → 1e+30.
//
// The input must be I-JSON (RFC 7493): valid UTF-8, no lone surrogate
// escapes, no duplicate member names, and numbers that fit a double. Anything
// else is refused with the byte offset of the problem.

// maxJCSDepth bounds nesting so a hostile card cannot exhaust the stack.
const maxJCSDepth = 256

// Canonicalize returns the RFC 8785 canonical form of the JSON text data.
func Canonicalize(data []byte) ([]byte, error) {
	v, err := parseIJSON(data, false)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(data))
	return appendCanonical(out, v)
}

// CheckIJSON returns the error Canonicalize would return for data, nil
// when there is none, without building its value: a card's check before
// it is decoded costs little more memory than its text.
func CheckIJSON(data []byte) error {
	_, err := parseIJSON(data, true)
	return err
}

func parseIJSON(data []byte, check bool) (any, error) {
	if !utf8.Valid(data) {
		return nil, &SyntaxError{Offset: invalidUTF8(data), Msg: "input is not valid UTF-8"}
	}
	p := &jparser{s: data, check: check}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, p.errf("trailing data after the JSON value")
	}
	return v, nil
}

// CanonicalizeValue returns the canonical form of a generic value in abi's
// canonical representation (nil, bool, int64, float64, string, []any,
// map[string]any; other integer types are accepted too). Integers are
// serialized as doubles, as JCS requires: one whose magnitude exceeds 2^53 is
// refused because it would not survive the round trip.
func CanonicalizeValue(v any) ([]byte, error) {
	return appendCanonical(nil, v)
}

// jobject is a parsed object in input order; appendCanonical sorts it.
type jobject []jmember

type jmember struct {
	name string
	v    any
}

type jparser struct {
	check bool // only check: build no objects or arrays
	s     []byte
	i     int
	// exactInts refuses an integer literal that a double cannot hold
	// exactly (SigningPayload: a card's signed form).
	exactInts bool
}

func (p *jparser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

// invalidUTF8 is the offset of b's first byte that is not valid UTF-8.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// SyntaxError is Canonicalize's error for input that is not I-JSON: what
// is wrong, and the byte offset in the input where it was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("jcs: offset %d: %s", e.Offset, e.Msg) }

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (any, error) {
	if depth > maxJCSDepth {
		return nil, p.errf("nested deeper than %d levels", maxJCSDepth)
	}
	if p.i >= len(p.s) {
		return nil, p.errf("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.lit("true")
	case c == 'f':
		return false, p.lit("false")
	case c == 'n':
		return nil, p.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errf("unexpected character %q", rune(c))
	}
}

func (p *jparser) lit(w string) error {
	if !strings.HasPrefix(string(p.s[p.i:min(len(p.s), p.i+len(w))]), w) {
		return p.errf("invalid literal (want %s)", w)
	}
	p.i += len(w)
	return nil
}

func (p *jparser) object(depth int) (any, error) {
	p.i++ // {
	var obj jobject
	if !p.check {
		obj = jobject{}
	}
	var seen map[string]bool
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return obj, nil
	}
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.errf("expected a member name string")
		}
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, p.errf("duplicate member name %q", name)
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[name] = true
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errf("expected ':' after member name %q", name)
		}
		p.i++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if !p.check {
			obj = append(obj, jmember{name, v})
		}
		p.ws()
		if p.i >= len(p.s) {
			return nil, p.errf("unterminated object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return obj, nil
		default:
			return nil, p.errf("expected ',' or '}' in object")
		}
	}
}

func (p *jparser) array(depth int) (any, error) {
	p.i++ // [
	var arr []any
	if !p.check {
		arr = []any{}
	}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return arr, nil
	}
	for {
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if !p.check {
			arr = append(arr, v)
		}
		p.ws()
		if p.i >= len(p.s) {
			return nil, p.errf("unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return arr, nil
		default:
			return nil, p.errf("expected ',' or ']' in array")
		}
	}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}

func (p *jparser) str() (string, error) {
	p.i++ // opening quote
	var sb strings.Builder
	start := p.i
	for {
		if p.i >= len(p.s) {
			return "", p.errf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			sb.Write(p.s[start:p.i])
			p.i++
			return sb.String(), nil
		case c < 0x20:
			return "", p.errf("control character 0x%02x in string must be escaped", c)
		case c == '\\':
			sb.Write(p.s[start:p.i])
			if p.i+1 >= len(p.s) {
				return "", p.errf("unterminated escape")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				sb.WriteByte(e)
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			case 't':
				sb.WriteByte('\t')
			case 'u':
				r, ok := hex4(p.s[p.i:])
				if !ok {
					return "", p.errf("bad \\u escape")
				}
				p.i += 4
				if utf16.IsSurrogate(r) {
					if r >= 0xDC00 || p.i+6 > len(p.s) || p.s[p.i] != '\\' || p.s[p.i+1] != 'u' {
						return "", p.errf("lone surrogate \\u%04x", r)
					}
					r2, ok := hex4(p.s[p.i+2:])
					if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
						return "", p.errf("lone surrogate \\u%04x", r)
					}
					p.i += 6
					r = utf16.DecodeRune(r, r2)
				}
				sb.WriteRune(r)
			default:
				return "", p.errf("invalid escape \\%c", e)
			}
			start = p.i
		default:
			p.i++
		}
	}
}

func (p *jparser) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.errf("invalid number")
	}
	integer := true // no fraction, no exponent
	if p.i < len(p.s) && p.s[p.i] == '.' {
		integer = false
		p.i++
		if digits() == 0 {
			return nil, p.errf("invalid number: digits must follow '.'")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		integer = false
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errf("invalid number: digits must follow the exponent")
		}
	}
	f, err := strconv.ParseFloat(string(p.s[start:p.i]), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, &SyntaxError{Offset: start, Msg: fmt.Sprintf("number %s does not fit an IEEE 754 double", p.s[start:p.i])}
	}
	// The host reads an integer literal that fits 64 bits exactly (abi's
	// int64 and uint64), but JCS reads every number as a double: in a
	// card, 9007199254740993 and 9007199254740992 would share one
	// canonical form, and so one signature, while the host reads two
	// values. Past 2^53 a card's integer literal must be the canonical
	// form of its double (that form verifies, so sign's own output does,
	// and it is the only such literal of that double). Canonicalize itself
	// takes any, as RFC 8785 does.
	if p.exactInts && integer && math.Abs(f) >= 1<<53 {
		lit := string(p.s[start:p.i])
		_, ierr := strconv.ParseInt(lit, 10, 64)
		_, uerr := strconv.ParseUint(lit, 10, 64)
		if canon, _ := AppendNumber(nil, f); (ierr == nil || uerr == nil) && string(canon) != lit {
			return nil, &SyntaxError{Offset: start, Msg: fmt.Sprintf("integer %s is beyond ±2^53 and not the canonical form of the double it reads as (%s), so others share its signature; write %s, or pass the number as a string", lit, canon, canon)}
		}
	}
	return f, nil
}

// lessUTF16 orders two strings by their UTF-16 code units (RFC 8785 §3.2.3).
func lessUTF16(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return utf16Key(ra) < utf16Key(rb)
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b != ""
}

// utf16Key maps a rune to a value ordered like its first UTF-16 code unit,
// with the second unit as a tie-breaker.
func utf16Key(r rune) uint32 {
	if r < 0x10000 {
		return uint32(r) << 16
	}
	hi, lo := utf16.EncodeRune(r)
	return uint32(hi)<<16 | uint32(lo)
}

func appendCanonical(out []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(out, "null"...), nil
	case bool:
		if x {
			return append(out, "true"...), nil
		}
		return append(out, "false"...), nil
	case string:
		return appendJCSString(out, x), nil
	case float64:
		return AppendNumber(out, x)
	case float32:
		return AppendNumber(out, float64(x))
	case int64:
		return appendInt(out, x)
	case int:
		return appendInt(out, int64(x))
	case int32:
		return appendInt(out, int64(x))
	case uint32:
		return appendInt(out, int64(x))
	case uint64: // above 2^63: beyond 2^53, refused as appendInt does
		return nil, fmt.Errorf("jcs: integer %d is beyond ±2^53 and cannot be represented exactly as a JSON number (pass it as a string)", x)
	case []any:
		out = append(out, '[')
		for i, e := range x {
			if i > 0 {
				out = append(out, ',')
			}
			if out, err = appendCanonical(out, e); err != nil {
				return nil, err
			}
		}
		return append(out, ']'), nil
	case jobject:
		sorted := slices.Clone(x)
		sort.Slice(sorted, func(i, j int) bool { return lessUTF16(sorted[i].name, sorted[j].name) })
		out = append(out, '{')
		for i, m := range sorted {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendJCSString(out, m.name)
			out = append(out, ':')
			if out, err = appendCanonical(out, m.v); err != nil {
				return nil, err
			}
		}
		return append(out, '}'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if !utf8.ValidString(k) {
				return nil, fmt.Errorf("jcs: member name %q is not valid UTF-8", k)
			}
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return lessUTF16(keys[i], keys[j]) })
		out = append(out, '{')
		for i, k := range keys {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendJCSString(out, k)
			out = append(out, ':')
			if out, err = appendCanonical(out, x[k]); err != nil {
				return nil, fmt.Errorf("%w (in member %q)", err, k)
			}
		}
		return append(out, '}'), nil
	}
	return nil, fmt.Errorf("jcs: a Go %T is not a JSON value", v)
}

func appendInt(out []byte, i int64) ([]byte, error) {
	const limit = 1 << 53
	if i > limit || i < -limit {
		return nil, fmt.Errorf("jcs: integer %d is beyond ±2^53 and cannot be represented exactly as a JSON number (pass it as a string)", i)
	}
	return AppendNumber(out, float64(i))
}

const hexDigits = "0123456789abcdef"

func appendJCSString(out []byte, s string) []byte {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		switch c {
		case '"':
			out = append(out, '\\', '"')
		case '\\':
			out = append(out, '\\', '\\')
		case '\b':
			out = append(out, '\\', 'b')
		case '\f':
			out = append(out, '\\', 'f')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}

// AppendNumber appends f formatted like ECMAScript's Number.prototype.toString
// (ECMA-262 §6.1.6.1.20), which RFC 8785 §3.2.2.3 adopts. NaN and infinities
// are refused.
func AppendNumber(out []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("jcs: %v is not a JSON number", f)
	}
	if f == 0 { // also -0
		return append(out, '0'), nil
	}
	if f < 0 {
		out = append(out, '-')
		f = -f
	}
	// Shortest round-trip digits: "d.ddddde±XX".
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	ep := bytes.IndexByte(e, 'e')
	mant, exp := e[:ep], e[ep+1:]
	digits := make([]byte, 0, 17)
	digits = append(digits, mant[0])
	if len(mant) > 2 {
		digits = append(digits, mant[2:]...)
	}
	x, _ := strconv.Atoi(string(exp))
	k := len(digits)
	n := x + 1 // the decimal point sits after n digits
	switch {
	case k <= n && n <= 21:
		out = append(out, digits...)
		for range n - k {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, digits[:n]...)
		out = append(out, '.')
		out = append(out, digits[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for range -n {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if n-1 >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(n-1), 10)
	}
	return out, nil
}

package abi

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aios-host/aios-host/guest/go/wire"
	"github.com/aios-host/aios-host/internal/jsonenc"
)

// Generic values
//
// Params, results and schemas travel as generic JSON values. Inside the host
// they are always in canonical form:
//
//	nil, bool, int64, uint64, float64, string, []any, map[string]any
//
// Integers that fit int64 are int64 (so 1 MiB of integers never loses
// precision through float64); integers above the int64 range and within
// uint64's (2^63 … 2^64−1: a component's u64, a 64-bit unsigned id) are
// uint64, never an int64-sized uint64; other numbers are float64 (so an
// integer below −2^63 or above 2^64−1 is rounded to the nearest float64). Normalize converts
// any other Go representation (json.Number, int, uint32, float32,
// map[string]string, []string, msgpack's map[string]interface{}, named
// numbers such as time.Duration, a json.RawMessage's JSON text ...) into it.

// Normalize returns v in canonical form. It fails on values JSON cannot carry
// (functions, channels, NaN and infinities, map keys encoding/json cannot
// write) naming the path of the offending value. A Go value that writes
// itself (MarshalJSON, MarshalText) is written as encoding/json writes it.
func Normalize(v any) (any, error) {
	return normalize(v, &valuePath{}, 0, nil)
}

// ErrOverLimit is the error of NormalizeWithin for a value whose JSON is
// longer than its limit.
var ErrOverLimit = errors.New("its JSON is over the size limit")

// NormalizeWithin is Normalize of a value whose JSON may take at most
// limit bytes (a result under limits.max_result_bytes). It stops once the
// part of v it has normalized takes more, counting what it has at its
// least (a float as one digit, a string without escapes), and returns an
// error wrapping ErrOverLimit: a value of millions of entries is refused
// in the time of its first limit bytes, not normalized whole first. A
// value it returns may still be over limit; only one it refuses is sure
// to be.
func NormalizeWithin(v any, limit int) (any, error) {
	return normalize(v, &valuePath{}, 0, &budget{left: limit})
}

// budget is what NormalizeWithin's value may still take, in bytes of JSON
// counted at their least.
type budget struct{ left int }

// take spends n bytes of b (nil: no bound) on the value at path.
func (b *budget) take(n int, path *valuePath) error {
	if b == nil {
		return nil
	}
	if b.left -= n; b.left < 0 {
		return fmt.Errorf("%s: %w", path.String(), ErrOverLimit)
	}
	return nil
}

// takeValue spends on canonical value v (built whole elsewhere: a struct
// encoding/json wrote) the least its JSON takes.
func (b *budget) takeValue(v any, path *valuePath) error {
	if b == nil {
		return nil
	}
	return b.take(leastLen(v, 0), path)
}

// leastLen is the least the JSON of canonical value v takes: its
// punctuation, member names and strings without escapes, its integers'
// digits, a float as one digit.
func leastLen(v any, depth int) int {
	switch x := v.(type) {
	case []any:
		n := max(1+len(x), 2)
		if depth <= MaxDepth {
			for _, e := range x {
				n += leastLen(e, depth+1)
			}
		}
		return n
	case map[string]any:
		n := max(1+len(x), 2)
		for k, e := range x {
			n += len(k) + 3
			if depth <= MaxDepth {
				n += leastLen(e, depth+1)
			}
		}
		return n
	}
	return leastScalarLen(v)
}

// leastScalarLen is leastLen of a canonical scalar.
func leastScalarLen(v any) int {
	switch x := v.(type) {
	case nil, bool:
		return 4
	case string:
		return len(x) + 2
	case int64:
		n := 1
		if x < 0 {
			n++
		}
		for ; x >= 10 || x <= -10; x /= 10 {
			n++
		}
		return n
	case uint64:
		return 19
	}
	return 1 // float64
}

// MaxDepth is the deepest a value may nest (arrays and objects) in params,
// arguments and results: Normalize refuses deeper ones.
const MaxDepth = 512

// valuePath is where a value is in the one Normalize was given, made
// into text ("$.a[2]") only for an error: each value's path was made as
// its parent's plus its own step, so a wide object deep in a value
// allocated the parent's path for each member (10 000 members 400 levels
// down, a value of 180 KB: 418 MB). The zero valuePath is the root, "$".
type valuePath struct {
	up     *valuePath
	key    string // the member's name, when member
	idx    int    // the item's index, when not member
	member bool
	raw    bool // the member's name is written as it is, "$." + key
}

// childPath: a container's items (members) share one valuePath, its step
// set before each is normalized: a path is made into text at once when an
// error names it and never kept, and a valuePath per value allocated
// 32 MB more for an array of a million strings than the path text it
// replaced (TestJSONEnvelopeCostVsReal).

// String is the path as the errors name it: "$", "$.a", `$["a b"][2]`.
// A path of more than maxPathSteps steps is named by its first and last
// pathEnds steps around the count of those left out: a value nested
// past MaxDepth was named by all its 513 steps (3 KB of ".properties.a").
func (p *valuePath) String() string {
	var b strings.Builder
	n := 0
	for q := p; q.up != nil; q = q.up {
		n++
	}
	if n <= maxPathSteps {
		p.write(&b)
		return b.String()
	}
	tail := p
	for range pathEnds {
		tail = tail.up
	}
	head := tail
	for range n - 2*pathEnds {
		head = head.up
	}
	head.write(&b)
	fmt.Fprintf(&b, "…(%d levels)…", n-2*pathEnds)
	var steps []*valuePath
	for q := p; q != tail; q = q.up {
		steps = append(steps, q)
	}
	for i := len(steps) - 1; i >= 0; i-- {
		steps[i].writeStep(&b)
	}
	return b.String()
}

// maxPathSteps and pathEnds bound a path's text (String).
const (
	maxPathSteps = 64
	pathEnds     = 16
)

// writeStep writes p's own step ("" for the root).
func (p *valuePath) writeStep(b *strings.Builder) {
	switch {
	case p.up == nil:
	case p.raw:
		b.WriteString("." + p.key)
	case p.member:
		b.WriteString(jsonenc.MemberPath("", p.key))
	default:
		b.WriteString("[" + strconv.Itoa(p.idx) + "]")
	}
}

// write writes the path to b, its parent's first.
func (p *valuePath) write(b *strings.Builder) {
	if p.up == nil {
		b.WriteString("$")
		return
	}
	p.up.write(b)
	p.writeStep(b)
}

// normalize is Normalize of v at path, depth levels down, spending b (nil:
// no bound) on what it returns.
func normalize(v any, path *valuePath, depth int, b *budget) (any, error) {
	n, err := normalizeOne(v, path, depth, b)
	if err != nil || b == nil {
		return n, err
	}
	switch n.(type) {
	case []any, map[string]any: // spent on as they were built
		return n, nil
	}
	return n, b.take(leastScalarLen(n), path)
}

// normalizeOne is normalize but for spending b on a scalar it returns.
func normalizeOne(v any, path *valuePath, depth int, b *budget) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("%s: value nested deeper than %d levels", path.String(), MaxDepth)
	}
	switch x := v.(type) {
	case nil, bool, int64:
		return x, nil
	case string:
		if !ValidUTF8(x) {
			return nil, invalidUTF8(path.String(), "string", x)
		}
		return x, nil
	case uint64:
		return normUint(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s: %v is not a JSON number", path.String(), x)
		}
		return x, nil
	case int:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint:
		return normUint(uint64(x)), nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case float32:
		return normalizeOne(float32Number(float64(x)), path, depth, b)
	case json.Number:
		n, ok := wire.Number(string(x))
		if f, isFloat := n.(float64); ok && isFloat && (math.IsNaN(f) || !json.Valid([]byte(x))) {
			// strconv.ParseFloat reads more than JSON's numbers:
			// "NaN" (a NaN in the value), "1_0", "+1", ".5", "0x1p4".
			ok = false
		}
		if !ok {
			return nil, badNumber(path.String(), string(x))
		}
		return n, nil
	case []any:
		if err := b.take(max(1+len(x), 2), path); err != nil {
			return nil, err
		}
		child := &valuePath{up: path} // one for all items (childPath)
		for i, e := range x {
			child.idx = i
			n, err := normalize(e, child, depth+1, b)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
		return x, nil
	case map[string]any:
		if err := b.take(max(1+len(x), 2), path); err != nil {
			return nil, err
		}
		child := &valuePath{up: path, member: true} // one for all members (childPath)
		for k, e := range x {
			if !ValidUTF8(k) {
				return nil, invalidUTF8(path.String(), "member name", k)
			}
			if err := b.take(len(k)+3, path); err != nil {
				return nil, err
			}
			child.key = k
			n, err := normalize(e, child, depth+1, b)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
		return x, nil
	case json.RawMessage:
		// JSON text a Go tool passes on (encoding/json embeds it as it
		// is): its value, not the array of its bytes.
		if len(x) == 0 {
			return nil, nil
		}
		var raw any
		if err := unmarshalUseNumber(x, &raw); err != nil {
			return nil, fmt.Errorf("%s: a json.RawMessage that is not JSON: %v", path.String(), err)
		}
		// encoding/json read an invalid byte and an escaped lone
		// surrogate as U+FFFD, text changed and two member names made
		// one without a word, where the same Go string is refused.
		if !utf8.Valid(x) {
			i := jsonenc.FirstInvalid(string(x))
			return nil, fmt.Errorf("%s: a json.RawMessage that is not Unicode text: byte 0x%02x at offset %d is not UTF-8", path.String(), x[i], i)
		}
		if i := wire.LoneSurrogate(x); i >= 0 {
			return nil, fmt.Errorf("%s: a json.RawMessage that is not Unicode text: it holds %s at offset %d, half of a UTF-16 surrogate pair without its other half, which has no UTF-8 form", path.String(), x[i:i+6], i)
		}
		return normalizeOne(raw, path, depth, b)
	case []byte:
		// Bytes have no JSON form; the ABI carries them as arrays of integers
		// only when a schema says so. Refuse rather than guess.
		return nil, fmt.Errorf("%s: raw bytes are not a JSON value (encode as base64 string or pass an ObjectId)", path.String())
	}
	return normalizeReflect(v, path, depth, b)
}

// badNumber is the error of a number text s at path that wire.Number
// refuses: a JSON number beyond a float64's range (a caller's million
// digits, 1e400), or text that is no JSON number. It quotes at most the
// first 40 characters of s and says how long it is: the message goes back
// to the caller and into the audit log.
func badNumber(path, s string) error {
	shown := strconv.Quote(s)
	if len(s) > 40 {
		shown = strconv.Quote(s[:40]) + "… (" + strconv.Itoa(len(s)) + " characters)"
	}
	if _, err := strconv.ParseFloat(s, 64); errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("%s: the number %s is beyond the range of a 64-bit float (about ±1.8e308), which the host reads numbers as; send it as a string", path, shown)
	}
	return fmt.Errorf("%s: %s is not a JSON number", path, shown)
}

// invalidUTF8 is the error of a string (or member name) s at path that is
// not valid UTF-8. Canonical strings are Unicode text, as JSON's and the
// Component Model's are: written as JSON, an invalid byte becomes U+FFFD,
// so two such strings, or two member names of one object, would become
// one, and the bytes would be lost silently.
func invalidUTF8(path, what, s string) error {
	i := jsonenc.FirstInvalid(s)
	return fmt.Errorf("%s: a %s that is not valid UTF-8 (byte 0x%02x at offset %d of %q): strings are Unicode text; encode bytes as base64 or store them and pass an ObjectId", path, what, s[i], i, clipInvalid(s))
}

// CheckText returns nil when the text s of a registration (a tool's
// description or tag, a provider's name) is valid UTF-8, else an error
// naming field, the first invalid byte and its offset. Written as JSON (to
// tools/list, MCP, the registry API) an invalid byte would become U+FFFD:
// the text served would not be the text registered.
func CheckText(field, s string) error {
	if ValidUTF8(s) {
		return nil
	}
	i := jsonenc.FirstInvalid(s)
	return fmt.Errorf("%s is not valid UTF-8 (byte 0x%02x at offset %d of %q)", field, s[i], i, clipInvalid(s))
}

// clipInvalid returns at most the first 64 bytes of s, for a message.
func clipInvalid(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Copy returns v with its maps and slices (map[string]any, []any) copied
// all the way down; other values are shared (the scalars of canonical
// values are immutable). Normalize(Copy(v)) is a canonical value that
// shares nothing with v. A value nested deeper than MaxDepth is copied
// down its first path that deep only, ending there in an empty list where
// the first container too deep is, so that Normalize refuses the copy as
// it would refuse v, at that path: one holding itself (a map put inside itself) was copied
// for ever, a stack overflow that ended the process (a native tool's
// error data, TestErrorDataCycleIsNotFatal), and copying each path to the
// limit did not end for one held under two of its own members (2^512
// paths: TestCopyOfWideCycleEnds).
func Copy(v any) any {
	c, _ := copyValue(v, 0)
	return c
}

// copyValue is Copy at depth; false when v is nested past MaxDepth (the
// copy is then cut as Copy says).
func copyValue(v any, depth int) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		if depth > MaxDepth {
			return []any{}, false
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			c, ok := copyValue(e, depth+1)
			m[k] = c
			if !ok {
				return m, false
			}
		}
		return m, true
	case []any:
		if depth > MaxDepth {
			return []any{}, false
		}
		s := make([]any, len(x))
		for i, e := range x {
			c, ok := copyValue(e, depth+1)
			s[i] = c
			if !ok {
				return s[:i+1], false
			}
		}
		return s, true
	}
	return v, true
}

func normUint(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return u
}

func normalizeReflect(v any, path *valuePath, depth int, b *budget) (any, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil
	}
	_, mj := v.(json.Marshaler)
	_, mt := v.(encoding.TextMarshaler)
	if rv.Kind() == reflect.Map && !mj && !mt {
		switch k := rv.Type().Key(); k.Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			if !k.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
				return nil, fmt.Errorf("%s: map key type %s is not a string, an integer or an encoding.TextMarshaler", path.String(), k)
			}
		}
	}
	// A map with integer keys (not TextMarshalers) is walked as a map
	// with string keys, each key in decimal as encoding/json writes it:
	// through encoding/json its whole floats from 2^53 up became other
	// integers and its invalid UTF-8 U+FFFD.
	intKeys := false
	if rv.Kind() == reflect.Map && !mj && !mt {
		k := rv.Type().Key()
		intKeys = k.Kind() != reflect.String && !k.Implements(reflect.TypeFor[encoding.TextMarshaler]())
	}
	if mj || mt || rv.Kind() == reflect.Map && rv.Type().Key().Kind() != reflect.String && !intKeys {
		// A value that writes itself (an enum's MarshalText, a UUID's
		// [16]byte) or a map with integer or TextMarshaler keys: as
		// encoding/json writes it, as a struct holding it is; by its
		// kind it was a number, an array of bytes, or refused.
		return jsonRoundTrip(v, path, b)
	}
	switch rv.Kind() {
	case reflect.Map:
		if err := b.take(max(1+rv.Len(), 2), path); err != nil {
			return nil, err
		}
		out := make(map[string]any, rv.Len())
		it := rv.MapRange()
		child := &valuePath{up: path, member: true} // one for all members (childPath)
		for it.Next() {
			var k string
			switch key := it.Key(); {
			case !intKeys:
				k = key.String()
			case key.CanInt():
				k = strconv.FormatInt(key.Int(), 10)
			default:
				k = strconv.FormatUint(key.Uint(), 10)
			}
			if !ValidUTF8(k) {
				return nil, invalidUTF8(path.String(), "member name", k)
			}
			if err := b.take(len(k)+3, path); err != nil {
				return nil, err
			}
			child.key = k
			n, err := normalize(it.Value().Interface(), child, depth+1, b)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		// A named integer (time.Duration, type Count int64) is its
		// number, as in encoding/json.
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return normUint(rv.Uint()), nil
	case reflect.Float32:
		return normalizeOne(float32Number(rv.Float()), path, depth, b)
	case reflect.Float64:
		return normalizeOne(rv.Float(), path, depth, b)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			// A named byte slice is bytes, as []byte is.
			return nil, fmt.Errorf("%s: raw bytes (a Go %s) are not a JSON value (encode as base64 string or pass an ObjectId)", path.String(), rv.Type())
		}
		if err := b.take(max(1+rv.Len(), 2), path); err != nil {
			return nil, err
		}
		out := make([]any, rv.Len())
		child := &valuePath{up: path} // one for all items (childPath)
		for i := range out {
			child.idx = i
			n, err := normalize(rv.Index(i).Interface(), child, depth+1, b)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case reflect.Pointer:
		if rv.IsNil() {
			return nil, nil
		}
		return normalizeOne(rv.Elem().Interface(), path, depth, b)
	case reflect.String:
		return normalizeOne(rv.String(), path, depth, b)
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Struct:
		// Round-trip through encoding/json so struct tags are honoured
		// (which writes a string field's invalid UTF-8 as U+FFFD, as it
		// does for any Go program's structs).
		return jsonRoundTrip(v, path, b)
	}
	return nil, fmt.Errorf("%s: a Go %T is not a JSON value", path.String(), v)
}

// float32Number is the float32 f (held in a float64) as encoding/json
// writes it: the shortest decimal that reads back as that float32 (0.1),
// not f's exact value (0.10000000149011612), which a float32 in a struct
// field, written by encoding/json, is not.
func float32Number(f float64) float64 {
	n, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
	if err != nil { // NaN and infinities: refused as they are
		return f
	}
	return n
}

// jsonRoundTrip is v as encoding/json writes it, read back canonical,
// spending b (nil: no bound) on an array or object it is.
func jsonRoundTrip(v any, path *valuePath, b *budget) (any, error) {
	text, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path.String(), err)
	}
	var raw any
	if err := unmarshalUseNumber(text, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path.String(), err)
	}
	if rel, lit, ok := wire.WideInteger(raw); ok {
		at := path.String() + rel
		// A Go integer past int64 and uint64 (a *big.Int, alone or in a
		// struct), written by encoding/json as its digits, was read back
		// as the nearest float, another number, without a word.
		if len(lit) > 40 {
			lit = lit[:40] + "… (" + strconv.Itoa(len(lit)) + " digits)"
		}
		return nil, fmt.Errorf("%s: the integer %s is outside the int64 and uint64 ranges, which the host's integers hold (read as a JSON number it would become the nearest float, another number); send it as a string (x.String())", at, lit)
	}
	out, err := Normalize(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path.String(), err)
	}
	switch out.(type) {
	case []any, map[string]any:
		if err := b.takeValue(out, path); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UnmarshalJSONValue decodes JSON into *out in canonical form (numbers as
// int64, uint64 above the int64 range, or float64; never json.Number).
func UnmarshalJSONValue(data []byte, out *any) error {
	var v any
	if err := unmarshalUseNumber(data, &v); err != nil {
		return err
	}
	n, err := Normalize(v)
	if err != nil {
		return err
	}
	*out = n
	return nil
}

package wit

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aios-host/aios-host/internal/jsonenc"
)

// FromJSON converts a generic JSON value (abi.Normalize form: nil, bool,
// int64, float64, string, []any, map[string]any; uint64 and json.Number are
// accepted too) to the Value of type t, following the encoding documented on
// JSONSchema. Errors name the JSON path, e.g.
// "$.params.width: 4294967296 is out of range for u32".
func FromJSON(t *Type, v any, path string) (Value, error) {
	return fromJSON(t, v, path, 0)
}

const maxValueDepth = 512

func typeName(t *Type) string {
	if t.Name != "" {
		return t.Kind.String() + " " + t.Name
	}
	return t.Kind.String()
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case string:
		if len(x) > 40 {
			return "a string"
		}
		return strconv.Quote(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case int64, uint64, float64, json.Number, int:
		return fmt.Sprint(x)
	}
	return fmt.Sprintf("a %T", v)
}

func mismatch(path string, t *Type, v any) error {
	return fmt.Errorf("%s: expected %s, found %s", path, typeName(t), describe(v))
}

func fromJSON(t *Type, v any, path string, depth int) (Value, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("%s: value nested deeper than %d levels", path, maxValueDepth)
	}
	if t == nil {
		if v != nil {
			return nil, fmt.Errorf("%s: expected null, found %s", path, describe(v))
		}
		return nil, nil
	}
	switch t.Kind {
	case KindBool:
		b, ok := v.(bool)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		return b, nil
	case KindS8, KindS16, KindS32, KindS64, KindU8, KindU16, KindU32, KindU64:
		return intFromJSON(t.Kind, v, path)
	case KindF32, KindF64:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x)
		case uint64:
			f = float64(x)
		case int:
			f = float64(x)
		case json.Number:
			var err error
			if f, err = x.Float64(); err != nil {
				return nil, fmt.Errorf("%s: bad number %s", path, x)
			}
		default:
			return nil, mismatch(path, t, v)
		}
		if t.Kind == KindF32 {
			if math.Abs(f) > MaxJSONFloat32 && !math.IsInf(f, 0) {
				return nil, fmt.Errorf("%s: %v is out of range for f32", path, f)
			}
			return float32(f), nil
		}
		return f, nil
	case KindChar:
		s, ok := v.(string)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 || n != len(s) || r == utf8.RuneError && n == 1 { // U+FFFD itself is a char
			return nil, fmt.Errorf("%s: expected exactly one Unicode character, found %s", path, describe(v))
		}
		return r, nil
	case KindString:
		s, ok := v.(string)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		if !utf8.ValidString(s) {
			return nil, fmt.Errorf("%s: string is not valid UTF-8", path)
		}
		return s, nil
	case KindList:
		if isBytes(t) {
			if s, ok := v.(string); ok {
				b, err := bytesFromBase64(s)
				if err != nil {
					return nil, fmt.Errorf("%s: expected bytes as base64 (standard or URL-safe alphabet, padding optional) or an array of integers 0..255: %v", path, err)
				}
				return b, nil
			}
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: expected bytes (a base64 string or an array of integers), found %s", path, describe(v))
			}
			b := make([]byte, len(arr))
			for i, e := range arr {
				x, err := intFromJSON(KindU8, e, path+"["+strconv.Itoa(i)+"]")
				if err != nil {
					return nil, err
				}
				b[i] = byte(x.(uint64))
			}
			return b, nil
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		if t.Len > 0 && len(arr) != int(t.Len) {
			return nil, fmt.Errorf("%s: expected exactly %d elements, found %d", path, t.Len, len(arr))
		}
		out := make([]Value, len(arr))
		for i, e := range arr {
			x, err := fromJSON(t.Elem, e, path+"["+strconv.Itoa(i)+"]", depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case KindTuple:
		arr, ok := v.([]any)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		if len(arr) != len(t.Tuple) {
			return nil, fmt.Errorf("%s: expected a tuple of %d elements, found %d", path, len(t.Tuple), len(arr))
		}
		out := make(Tuple, len(arr))
		for i, e := range arr {
			x, err := fromJSON(t.Tuple[i], e, path+"["+strconv.Itoa(i)+"]", depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case KindRecord:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		out := make(Record, len(t.Fields))
		for i, f := range t.Fields {
			fv, present := m[f.Name]
			if !present {
				if isOption(f.Type) {
					out[i] = Option{}
					continue
				}
				return nil, fmt.Errorf("%s: missing required field %q", path, f.Name)
			}
			x, err := fromJSON(f.Type, fv, path+"."+f.Name, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		if len(m) > len(t.Fields) || len(m) > countPresent(t, m) {
			for _, k := range sortedKeys(m) {
				if fieldIndex(t, k) < 0 {
					return nil, fmt.Errorf("%s: unknown field %q for %s", path, k, typeName(t))
				}
			}
		}
		return out, nil
	case KindOption:
		if v == nil {
			return Option{}, nil
		}
		if nullable(t.Elem) {
			m, ok := v.(map[string]any)
			inner, has := m["some"]
			if !ok || !has || len(m) != 1 {
				return nil, fmt.Errorf("%s: expected null or {\"some\": ...}, found %s", path, describe(v))
			}
			x, err := fromJSON(t.Elem, inner, path+".some", depth+1)
			if err != nil {
				return nil, err
			}
			return Option{Some: true, Val: x}, nil
		}
		x, err := fromJSON(t.Elem, v, path, depth+1)
		if err != nil {
			return nil, err
		}
		return Option{Some: true, Val: x}, nil
	case KindEnum:
		s, ok := v.(string)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		for i, n := range t.Names {
			if n == s {
				return Enum(i), nil
			}
		}
		return nil, fmt.Errorf("%s: %s is not a case of %s (one of %v)", path, describe(v), typeName(t), t.Names)
	case KindFlags:
		arr, ok := v.([]any)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		var f Flags
	next:
		for i, e := range arr {
			s, ok := e.(string)
			if ok {
				for j, n := range t.Names {
					if n == s {
						if f&(1<<uint(j)) != 0 {
							return nil, fmt.Errorf("%s[%d]: flag %q given twice", path, i, s)
						}
						f |= 1 << uint(j)
						continue next
					}
				}
			}
			return nil, fmt.Errorf("%s[%d]: %s is not a flag of %s (one of %v)", path, i, describe(e), typeName(t), t.Names)
		}
		return f, nil
	case KindVariant:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		tag, ok := m["tag"].(string)
		if !ok {
			return nil, fmt.Errorf("%s: expected {\"tag\": case, \"val\": payload} for %s", path, typeName(t))
		}
		for i, c := range t.Cases {
			if c.Name != tag {
				continue
			}
			val, has := m["val"]
			for k := range m {
				if k != "tag" && k != "val" {
					return nil, fmt.Errorf("%s: unknown field %q in variant", path, k)
				}
			}
			if c.Type == nil {
				if has {
					return nil, fmt.Errorf("%s: case %q of %s has no payload; remove \"val\"", path, tag, typeName(t))
				}
				return Variant{Case: uint32(i)}, nil
			}
			if !has {
				return nil, fmt.Errorf("%s: case %q of %s needs a \"val\"", path, tag, typeName(t))
			}
			x, err := fromJSON(c.Type, val, path+".val", depth+1)
			if err != nil {
				return nil, err
			}
			return Variant{Case: uint32(i), Val: x}, nil
		}
		return nil, fmt.Errorf("%s: %q is not a case of %s", path, tag, typeName(t))
	case KindResult:
		m, ok := v.(map[string]any)
		if !ok || len(m) != 1 {
			return nil, fmt.Errorf("%s: expected {\"ok\": ...} or {\"err\": ...}, found %s", path, describe(v))
		}
		if x, has := m["ok"]; has {
			val, err := fromJSON(t.Ok, x, path+".ok", depth+1)
			if err != nil {
				return nil, err
			}
			return Result{Val: val}, nil
		}
		if x, has := m["err"]; has {
			val, err := fromJSON(t.Err, x, path+".err", depth+1)
			if err != nil {
				return nil, err
			}
			return Result{IsErr: true, Val: val}, nil
		}
		return nil, fmt.Errorf("%s: expected {\"ok\": ...} or {\"err\": ...}, found %s", path, describe(v))
	case KindMap:
		if isStringKey(t) {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, mismatch(path, t, v)
			}
			out := make([]Value, 0, len(m))
			for _, k := range sortedKeys(m) {
				x, err := fromJSON(t.Elem, m[k], jsonenc.MemberPath(path, k), depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, Tuple{k, x})
			}
			return out, nil
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, mismatch(path, t, v)
		}
		out := make([]Value, len(arr))
		for i, e := range arr {
			p := path + "[" + strconv.Itoa(i) + "]"
			pair, ok := e.([]any)
			if !ok || len(pair) != 2 {
				return nil, fmt.Errorf("%s: expected a [key, value] pair, found %s", p, describe(e))
			}
			k, err := fromJSON(t.Key, pair[0], p+"[0]", depth+1)
			if err != nil {
				return nil, err
			}
			x, err := fromJSON(t.Elem, pair[1], p+"[1]", depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = Tuple{k, x}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: %s values cannot be given as JSON", path, typeName(t))
}

// bytesFromBase64 decodes the base64 text of a list<u8>: the standard
// (+ /) or the URL-safe (- _) alphabet, with or without its padding, line
// breaks ignored (as MIME writes them). It took the standard padded form
// only, so the unpadded and URL-safe text many encoders write (Node's
// base64url, Python's urlsafe_b64encode, JWT-style libraries) was refused,
// and the error named a byte that was not wrong ("aGk": "illegal base64
// data at input byte 0"). The schema cannot check a string is base64 (a
// pattern takes about a second over the megabytes of an image), so this
// is where a string that is not is refused; the error names the character
// and its position, or what is wrong with the padding.
func bytesFromBase64(s string) ([]byte, error) {
	var std, url bool
	n, pad := 0, 0 // data characters, padding characters
	pos := 0       // character position (line breaks counted)
	for i := 0; i < len(s); pos++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_':
			if pad > 0 {
				return nil, fmt.Errorf("%q at character %d follows the padding '=' (padding ends base64)", c, pos)
			}
			if c == '+' || c == '/' {
				std = true
			} else if c == '-' || c == '_' {
				url = true
			}
			if std && url {
				return nil, fmt.Errorf("%q at character %d mixes the URL-safe alphabet (- _) with the standard one (+ /)", c, pos)
			}
			n++
		case c == '=':
			pad++
		case c == '\r' || c == '\n':
		default:
			r, w := utf8.DecodeRuneInString(s[i:])
			if w == 1 && r == utf8.RuneError {
				return nil, fmt.Errorf("byte 0x%02x at character %d is not base64", c, pos)
			}
			return nil, fmt.Errorf("%s at character %d is not a base64 character (A-Z a-z 0-9 + / or - _, then =)", runeName(r), pos)
		}
		i++
	}
	if n%4 == 1 {
		return nil, fmt.Errorf("%d characters end with a lone one: base64 comes in groups of 4 characters, the last of 2 to 4 (is a character missing or one too many?)", n)
	}
	if want := (4 - n%4) % 4; pad != 0 && pad != want {
		return nil, fmt.Errorf("%d data characters take %d padding characters '=', not %d", n, want, pad)
	}
	// Everything after the first '=' is padding or line breaks (checked
	// above), and the decoder skips the line breaks within: no copy.
	data := strings.TrimRight(s, "=\r\n")
	enc := base64.RawStdEncoding
	if url {
		enc = base64.RawURLEncoding
	}
	return enc.DecodeString(data)
}

// runeName quotes r, with its code point when it is not ASCII.
func runeName(r rune) string {
	if r < 0x80 {
		return strconv.QuoteRune(r)
	}
	return fmt.Sprintf("%q (U+%04X)", r, r)
}

func countPresent(t *Type, m map[string]any) int {
	n := 0
	for _, f := range t.Fields {
		if _, ok := m[f.Name]; ok {
			n++
		}
	}
	return n
}

func fieldIndex(t *Type, name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func intFromJSON(k Kind, v any, path string) (Value, error) {
	min, max := intRange(k)
	name := k.String()
	var neg bool
	var mag uint64 // magnitude
	switch x := v.(type) {
	case int64:
		neg = x < 0
		if neg {
			mag = uint64(-(x + 1)) + 1
		} else {
			mag = uint64(x)
		}
	case int:
		return intFromJSON(k, int64(x), path)
	case uint64:
		mag = x
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("%s: %v is not an integer (%s)", path, x, name)
		}
		if x < -9.223372036854775808e18 || x >= 1.8446744073709551616e19 {
			return nil, fmt.Errorf("%s: %v is out of range for %s", path, x, name)
		}
		if x == -9.223372036854775808e18 {
			// -2^63 as a float64: a JSON integer of that value decodes as
			// an int64 (abi.UnmarshalJSONValue); as a float64 it is one
			// below the int64 range (-9223372036854775809 …
			// -9223372036854776832) rounded up into it, and was taken as
			// s64's minimum.
			return nil, fmt.Errorf("%s: %v is out of range for %s (a number below -9223372036854775808, rounded to it)", path, x, name)
		}
		if x < 0 {
			neg = true
			mag = uint64(-x)
		} else {
			mag = uint64(x)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return intFromJSON(k, i, path)
		}
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return intFromJSON(k, u, path)
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("%s: bad number %s", path, x)
		}
		return intFromJSON(k, f, path)
	default:
		return nil, fmt.Errorf("%s: expected %s (an integer), found %s", path, name, describe(v))
	}
	if neg {
		if mag > uint64(-(min+1))+1 || min == 0 {
			return nil, fmt.Errorf("%s: %s is out of range for %s", path, "-"+strconv.FormatUint(mag, 10), name)
		}
		return -int64(mag-1) - 1, nil
	}
	if mag > max {
		return nil, fmt.Errorf("%s: %s is out of range for %s", path, strconv.FormatUint(mag, 10), name)
	}
	if isSigned(k) {
		return int64(mag), nil
	}
	return mag, nil
}

// ToJSON converts a Value of type t to its generic JSON form (the inverse of
// FromJSON). Integers come out as int64, except u64 values above
// math.MaxInt64 which stay uint64 so that they are exact (encoding/json
// writes them exactly). An f32 comes out as the shortest decimal that
// reads back as it (0.1, not 0.10000000149011612). Non-finite floats have
// no JSON form: an error naming the path.
// A Value of the wrong Go type for t yields an error naming the path.
func ToJSON(t *Type, v Value) (any, error) {
	return toJSON(t, v, "$", 0)
}

func badValue(path string, t *Type, v Value) error {
	return fmt.Errorf("%s: a Go %T is not a value of %s", path, v, typeName(t))
}

func toJSON(t *Type, v Value, path string, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("%s: value nested deeper than %d levels", path, maxValueDepth)
	}
	if t == nil {
		return nil, nil
	}
	switch t.Kind {
	case KindBool:
		b, ok := v.(bool)
		if !ok {
			return nil, badValue(path, t, v)
		}
		return b, nil
	case KindS8, KindS16, KindS32, KindS64:
		i, ok := v.(int64)
		if !ok {
			return nil, badValue(path, t, v)
		}
		return i, nil
	case KindU8, KindU16, KindU32, KindU64:
		u, ok := v.(uint64)
		if !ok {
			return nil, badValue(path, t, v)
		}
		if u > math.MaxInt64 {
			return u, nil
		}
		return int64(u), nil
	case KindF32, KindF64:
		var f float64
		switch x := v.(type) {
		case float32:
			f = f32JSON(x)
		case float64:
			f = x
		default:
			return nil, badValue(path, t, v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			// Not null: an option<f64>'s some(NaN) would read as none.
			return nil, fmt.Errorf("%s: %v (%s) has no JSON form (JSON has no NaN or infinity)", path, f, typeName(t))
		}
		return f, nil
	case KindChar:
		r, ok := v.(rune)
		if !ok {
			return nil, badValue(path, t, v)
		}
		// string(r) writes U+FFFD for a rune that is not a scalar value:
		// a char the component never returned.
		if !utf8.ValidRune(r) {
			if r < 0 {
				return nil, fmt.Errorf("%s: %d (%s) is not a Unicode scalar value", path, r, typeName(t))
			}
			return nil, fmt.Errorf("%s: U+%04X (%s) is not a Unicode scalar value", path, r, typeName(t))
		}
		return string(r), nil
	case KindString:
		s, ok := v.(string)
		if !ok {
			return nil, badValue(path, t, v)
		}
		// encoding/json writes U+FFFD for bytes that are not UTF-8, so
		// the caller would get text the component never returned.
		if !utf8.ValidString(s) {
			i := jsonenc.FirstInvalid(s)
			return nil, fmt.Errorf("%s: string is not valid UTF-8 (byte 0x%02x at offset %d)", path, s[i], i)
		}
		return s, nil
	case KindList:
		if isBytes(t) {
			if b, ok := v.([]byte); ok {
				return base64.StdEncoding.EncodeToString(b), nil
			}
			arr, ok := v.([]Value)
			if !ok {
				return nil, badValue(path, t, v)
			}
			b := make([]byte, len(arr))
			for i, e := range arr {
				u, ok := e.(uint64)
				if !ok || u > 255 {
					return nil, badValue(path+"["+strconv.Itoa(i)+"]", t.Elem, e)
				}
				b[i] = byte(u)
			}
			return base64.StdEncoding.EncodeToString(b), nil
		}
		if b, ok := v.([]byte); ok && t.Elem.Kind == KindU8 {
			out := make([]any, len(b))
			for i, c := range b {
				out[i] = int64(c)
			}
			return out, nil
		}
		arr, ok := v.([]Value)
		if !ok {
			return nil, badValue(path, t, v)
		}
		return listToJSON(t.Elem, arr, path, depth)
	case KindTuple:
		arr, ok := v.(Tuple)
		if !ok || len(arr) != len(t.Tuple) {
			return nil, badValue(path, t, v)
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			x, err := toJSON(t.Tuple[i], e, path+"["+strconv.Itoa(i)+"]", depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case KindRecord:
		rec, ok := v.(Record)
		if !ok || len(rec) != len(t.Fields) {
			return nil, badValue(path, t, v)
		}
		m := make(map[string]any, len(rec))
		for i, f := range t.Fields {
			if isOption(f.Type) {
				if o, ok := rec[i].(Option); ok && !o.Some {
					continue
				}
			}
			x, err := toJSON(f.Type, rec[i], path+"."+f.Name, depth+1)
			if err != nil {
				return nil, err
			}
			m[f.Name] = x
		}
		return m, nil
	case KindOption:
		o, ok := v.(Option)
		if !ok {
			return nil, badValue(path, t, v)
		}
		if !o.Some {
			return nil, nil
		}
		x, err := toJSON(t.Elem, o.Val, path, depth+1)
		if err != nil {
			return nil, err
		}
		if nullable(t.Elem) {
			return map[string]any{"some": x}, nil
		}
		return x, nil
	case KindEnum:
		e, ok := v.(Enum)
		if !ok || int(e) >= len(t.Names) {
			return nil, badValue(path, t, v)
		}
		return t.Names[e], nil
	case KindFlags:
		f, ok := v.(Flags)
		if !ok || len(t.Names) < 64 && f>>uint(len(t.Names)) != 0 {
			return nil, badValue(path, t, v)
		}
		out := []any{}
		for i, n := range t.Names {
			if f&(1<<uint(i)) != 0 {
				out = append(out, n)
			}
		}
		return out, nil
	case KindVariant:
		vr, ok := v.(Variant)
		if !ok || int(vr.Case) >= len(t.Cases) {
			return nil, badValue(path, t, v)
		}
		c := t.Cases[vr.Case]
		m := map[string]any{"tag": c.Name}
		if c.Type != nil {
			x, err := toJSON(c.Type, vr.Val, path+".val", depth+1)
			if err != nil {
				return nil, err
			}
			m["val"] = x
		}
		return m, nil
	case KindResult:
		r, ok := v.(Result)
		if !ok {
			return nil, badValue(path, t, v)
		}
		if r.IsErr {
			x, err := toJSON(t.Err, r.Val, path+".err", depth+1)
			if err != nil {
				return nil, err
			}
			return map[string]any{"err": x}, nil
		}
		x, err := toJSON(t.Ok, r.Val, path+".ok", depth+1)
		if err != nil {
			return nil, err
		}
		return map[string]any{"ok": x}, nil
	case KindMap:
		arr, ok := v.([]Value)
		if !ok {
			return nil, badValue(path, t, v)
		}
		if isStringKey(t) {
			m := make(map[string]any, len(arr))
			for i, e := range arr {
				pair, ok := e.(Tuple)
				if !ok || len(pair) != 2 {
					return nil, badValue(path+"["+strconv.Itoa(i)+"]", t, e)
				}
				k, ok := pair[0].(string)
				if !ok {
					return nil, badValue(path+"["+strconv.Itoa(i)+"]", t.Key, pair[0])
				}
				if _, err := toJSON(t.Key, k, path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
					return nil, err // a key that is not UTF-8
				}
				x, err := toJSON(t.Elem, pair[1], jsonenc.MemberPath(path, k), depth+1)
				if err != nil {
					return nil, err
				}
				m[k] = x
			}
			return m, nil
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			p := path + "[" + strconv.Itoa(i) + "]"
			pair, ok := e.(Tuple)
			if !ok || len(pair) != 2 {
				return nil, badValue(p, t, e)
			}
			k, err := toJSON(t.Key, pair[0], p+"[0]", depth+1)
			if err != nil {
				return nil, err
			}
			x, err := toJSON(t.Elem, pair[1], p+"[1]", depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = []any{k, x}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: %s values have no JSON form", path, typeName(t))
}

// f32JSON is the float64 that JSON writes for the f32 x: the shortest
// decimal that reads back as x (0.1, as encoding/json, Rust's serde and
// wasm-tools write an f32), not float64(x), whose shortest form is that of
// x's binary value (0.10000000149011612): a caller sending 0.1 to a tool
// echoing an f32 got that back. It reads back (FromJSON) as x; should the
// rounding to float64 and then to float32 ever not give x, x's own value is
// kept.
func f32JSON(x float32) float64 {
	var buf [32]byte
	f, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], float64(x), 'g', -1, 32)), 64)
	if err != nil || float32(f) != x {
		return float64(x)
	}
	return f
}

func listToJSON(elem *Type, arr []Value, path string, depth int) (any, error) {
	out := make([]any, len(arr))
	for i, e := range arr {
		x, err := toJSON(elem, e, path+"["+strconv.Itoa(i)+"]", depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// FuncParamsFromJSON converts a params object to the argument Values of f,
// in parameter order. Absent or null option parameters are none; unknown
// properties are refused. Paths start at "$.params".
func FuncParamsFromJSON(f *Func, params any) ([]Value, error) {
	m, ok := params.(map[string]any)
	if !ok {
		if params == nil && len(f.Params) == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("$.params: expected an object, found %s", describe(params))
	}
	out := make([]Value, len(f.Params))
	for i, p := range f.Params {
		v, present := m[p.Name]
		if !present {
			if isOption(p.Type) {
				out[i] = Option{}
				continue
			}
			return nil, fmt.Errorf("$.params: missing required parameter %q", p.Name)
		}
		x, err := fromJSON(p.Type, v, "$.params."+p.Name, 0)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	for _, k := range sortedKeys(m) {
		found := false
		for _, p := range f.Params {
			found = found || p.Name == k
		}
		if !found {
			return nil, fmt.Errorf("$.params: unknown parameter %q", k)
		}
	}
	return out, nil
}

// FuncResultToJSON converts the return Value of f to a tool result. For a
// top-level result<T, E>: ok gives (T's JSON, nil, false); err gives (nil,
// E's JSON, true), which the caller reports as a ProviderError whose Data
// carries E. A function without result returns null.
func FuncResultToJSON(f *Func, v Value) (result any, errData any, failed bool, err error) {
	if f.Result == nil {
		return nil, nil, false, nil
	}
	if f.Result.Kind == KindResult {
		r, ok := v.(Result)
		if !ok {
			return nil, nil, false, badValue("$.result", f.Result, v)
		}
		if r.IsErr {
			e, err := toJSON(f.Result.Err, r.Val, "$.error", 0)
			return nil, e, true, err
		}
		x, err := toJSON(f.Result.Ok, r.Val, "$.result", 0)
		return x, nil, false, err
	}
	x, err := toJSON(f.Result, v, "$.result", 0)
	return x, nil, false, err
}

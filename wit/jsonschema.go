package wit

import (
	"fmt"
	"math"
	"strings"
)

// JSON Schema mapping (draft 2020-12). The encoding of each kind is the one
// FromJSON accepts and ToJSON produces; docs/wit.md has the full table.
//
//	bool                 {"type":"boolean"}
//	s8 … u64             {"type":"integer","minimum":MIN,"maximum":MAX} (exact bounds; u64's maximum is the uint64 18446744073709551615)
//	f32, f64             {"type":"number"} (f32 also bounded by ±MaxJSONFloat32)
//	char                 {"type":"string","minLength":1,"maxLength":1} (one Unicode scalar value)
//	string               {"type":"string"}
//	list<u8>             anyOf: base64 string | array of u8; ToJSON writes standard padded base64, FromJSON
//	                     also takes the URL-safe alphabet and no padding (bytesFromBase64)
//	list<T>              {"type":"array","items":T} (+ minItems = maxItems = N for list<T, N>)
//	tuple<A, B>          {"type":"array","prefixItems":[A,B],"items":false,"minItems":2,"maxItems":2}
//	record               {"type":"object","properties":…,"required":[non-option fields],"additionalProperties":false}
//	option<T>            anyOf: null (none) | T (some); when T is itself an option: null | {"some": T}
//	                     a record field of option type is optional: absent or null is none
//	enum                 {"type":"string","enum":[cases]}; with case docs "oneOf":[{"const":case,"description":docs}…] for "enum"
//	flags                {"type":"array","items":{"enum":[flags]},"uniqueItems":true}; flag docs as for enum cases
//	variant              oneOf: {"tag":"case"} | {"tag":"case","val":payload}
//	result<T, E>         oneOf: {"ok": T} | {"err": E} (null when that side has no type)
//	map<string, V>       {"type":"object","additionalProperties":V}
//	map<K, V>            array of [key, value] pairs
//	own, borrow, future, stream, error-context: no JSON form; {"not":{}} and JSONCompatible refuses them
//
// Names are kept exactly as written in WIT (kebab-case); doc comments
// become "description".

// MaxJSONFloat32 bounds an f32 in JSON (FromJSON and the schema): the
// largest float32, math.MaxFloat32, as float32 printers write it
// (strconv.FormatFloat with bitSize 32, encoding/json for a float32, C's
// FLT_MAX with %g, Rust's f32::MAX). It is a little more than
// math.MaxFloat32 as a float64 (3.4028234663852886e+38), which was the bound:
// a client sending the largest f32 as its language writes it was refused
// ("3.4028235e+38 is out of range for f32"). It rounds to math.MaxFloat32.
const MaxJSONFloat32 = 3.4028235e38

// Integer bounds per kind.
func intRange(k Kind) (min int64, max uint64) {
	switch k {
	case KindS8:
		return math.MinInt8, math.MaxInt8
	case KindU8:
		return 0, math.MaxUint8
	case KindS16:
		return math.MinInt16, math.MaxInt16
	case KindU16:
		return 0, math.MaxUint16
	case KindS32:
		return math.MinInt32, math.MaxInt32
	case KindU32:
		return 0, math.MaxUint32
	case KindS64:
		return math.MinInt64, math.MaxInt64
	case KindU64:
		return 0, math.MaxUint64
	}
	return 0, 0
}

func isInt(k Kind) bool { return k >= KindS8 && k <= KindU64 }
func isSigned(k Kind) bool {
	return k == KindS8 || k == KindS16 || k == KindS32 || k == KindS64
}

// isBytes tells whether t is a variable-length list<u8> (base64 in JSON).
func isBytes(t *Type) bool {
	return t.Kind == KindList && t.Len == 0 && t.Elem != nil && t.Elem.Kind == KindU8
}

// nullable tells whether the JSON form of t can be null.
func nullable(t *Type) bool { return t == nil || t.Kind == KindOption }

// JSONCompatible reports the first type inside t that has no JSON form
// (resource handles, futures, streams, error-context), naming where it is.
func JSONCompatible(t *Type) error { return jsonCompatible(t, "$", 0, map[*Type]int{}) }

// seen holds the greatest depth each type was checked at. A type met again
// no deeper is skipped; one met deeper is checked again, since its own
// nesting may now pass the bound: skipping every type met before let
// fields that nest one shared type in another pass at any depth. A type is
// checked at most once per depth, so the walk stays linear in the number
// of types.
func jsonCompatible(t *Type, path string, depth int, seen map[*Type]int) error {
	if t == nil {
		return nil
	}
	if d, ok := seen[t]; ok && depth <= d {
		return nil
	}
	seen[t] = depth
	if depth > maxJSONTypeDepth {
		return fmt.Errorf("%s: type nested more than %d levels deep", shortPath(path), maxJSONTypeDepth)
	}
	switch t.Kind {
	case KindOwn, KindBorrow, KindFuture, KindStream, KindErrorContext:
		what := t.Kind.String()
		if t.Resource != nil {
			what += "<" + t.Resource.Name + ">"
		}
		return fmt.Errorf("%s: %s has no JSON form (resource handles, futures, streams and error-contexts cannot be passed as JSON tool parameters or results)", path, what)
	case KindInvalid:
		return fmt.Errorf("%s: invalid type", path)
	}
	for _, f := range t.Fields {
		if err := jsonCompatible(f.Type, path+"."+f.Name, depth+1, seen); err != nil {
			return err
		}
	}
	for _, c := range t.Cases {
		if err := jsonCompatible(c.Type, path+"."+c.Name, depth+1, seen); err != nil {
			return err
		}
	}
	for i, e := range t.Tuple {
		if err := jsonCompatible(e, fmt.Sprintf("%s[%d]", path, i), depth+1, seen); err != nil {
			return err
		}
	}
	for _, s := range []*Type{t.Elem, t.Key, t.Ok, t.Err} {
		if err := jsonCompatible(s, path+"[]", depth+1, seen); err != nil {
			return err
		}
	}
	return nil
}

// maxJSONTypeDepth bounds the nesting of a type with a JSON form.
const maxJSONTypeDepth = 200

// shortPath writes each run of more than three "[]" in path once with its
// count ("$.x[]×200"): a path to a type nested beyond maxJSONTypeDepth
// wrote one "[]" per level, over 400 characters of them.
func shortPath(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); {
		n := 0
		for strings.HasPrefix(path[i+2*n:], "[]") {
			n++
		}
		switch {
		case n > 3:
			fmt.Fprintf(&b, "[]×%d", n)
			i += 2 * n
		case n > 0:
			b.WriteString(path[i : i+2*n])
			i += 2 * n
		default:
			b.WriteByte(path[i])
			i++
		}
	}
	return b.String()
}

// FuncJSONCompatible checks every parameter and the result of f.
func FuncJSONCompatible(f *Func) error {
	if n := FuncTreeSize(f, MaxFuncTreeSize); n > MaxFuncTreeSize {
		return fmt.Errorf("function %s: its parameter and result types, written out, have more than %d parts: "+
			"they nest the same types in themselves over and over (tuple<t, t> where t = tuple<u, u>, …), "+
			"so their JSON Schema and JSON values would grow with 2 to the power of that nesting", f.Name, MaxFuncTreeSize)
	}
	for _, p := range f.Params {
		if err := jsonCompatible(p.Type, "$.params."+p.Name, 0, map[*Type]int{}); err != nil {
			return fmt.Errorf("function %s: %w", f.Name, err)
		}
	}
	if err := jsonCompatible(f.Result, "$.result", 0, map[*Type]int{}); err != nil {
		return fmt.Errorf("function %s: %w", f.Name, err)
	}
	return nil
}

// MaxFuncTreeSize bounds FuncTreeSize for a function with a JSON form
// (FuncJSONCompatible). The interfaces seen in practice are far below it:
// the largest function of the samples and of the WASI 0.2 interfaces has a
// few dozen parts.
const MaxFuncTreeSize = 10_000

// TreeSize returns the number of parts of t written out as a tree: t
// itself plus, for every type it uses, that type's parts again at each use,
// which is the size of t's JSON Schema, of the shape of its JSON values and
// of t in WIT text when its types are anonymous. Types form a DAG that may
// use one type many times, so the tree can be exponentially larger than the
// types: tuple<t, t> where t = tuple<u, u> and so on doubles at each level,
// and 60 levels fit in 500 bytes of a component. TreeSize counts in time
// linear in the number of distinct types and stops at limit + 1.
func TreeSize(t *Type, limit int) int { return treeSize(t, limit, map[*Type]int{}) }

// FuncTreeSize is the sum of TreeSize over f's parameter and result types,
// at most limit + 1.
func FuncTreeSize(f *Func, limit int) int {
	memo := map[*Type]int{}
	n := 0
	for _, p := range f.Params {
		n = min(n+treeSize(p.Type, limit, memo), limit+1)
	}
	return min(n+treeSize(f.Result, limit, memo), limit+1)
}

func treeSize(t *Type, limit int, memo map[*Type]int) int {
	if t == nil {
		return 0
	}
	if n, ok := memo[t]; ok {
		return n
	}
	memo[t] = limit + 1 // a type that uses itself (not valid WIT) counts as too large
	n := 1
	add := func(u *Type) {
		if n <= limit {
			n = min(n+treeSize(u, limit, memo), limit+1)
		}
	}
	for _, f := range t.Fields {
		add(f.Type)
	}
	for _, c := range t.Cases {
		add(c.Type)
	}
	for _, e := range t.Tuple {
		add(e)
	}
	for _, u := range []*Type{t.Elem, t.Key, t.Ok, t.Err} {
		add(u)
	}
	memo[t] = n
	return n
}

// JSONSchema returns the JSON Schema (draft 2020-12) of t's JSON form. The
// result is a fresh map each call.
func JSONSchema(t *Type) map[string]any {
	s := schemaOf(t)
	if t != nil && t.Docs != "" {
		s["description"] = t.Docs
	}
	return s
}

func schemaOf(t *Type) map[string]any {
	if t == nil {
		return map[string]any{"type": "null"}
	}
	switch t.Kind {
	case KindBool:
		return map[string]any{"type": "boolean"}
	case KindS8, KindU8, KindS16, KindU16, KindS32, KindU32, KindS64, KindU64:
		min, max := intRange(t.Kind)
		s := map[string]any{"type": "integer", "minimum": min}
		if max > math.MaxInt64 {
			s["maximum"] = max
		} else {
			s["maximum"] = int64(max)
		}
		return s
	case KindF32:
		return map[string]any{"type": "number", "minimum": -MaxJSONFloat32, "maximum": MaxJSONFloat32}
	case KindF64:
		return map[string]any{"type": "number"}
	case KindChar:
		return map[string]any{"type": "string", "minLength": 1, "maxLength": 1}
	case KindString:
		return map[string]any{"type": "string"}
	case KindList:
		if isBytes(t) {
			return map[string]any{"anyOf": []any{
				map[string]any{"type": "string", "contentEncoding": "base64"},
				map[string]any{"type": "array", "items": schemaOf(t.Elem)},
			}, "description": "bytes: a base64 string (standard or URL-safe alphabet, padding optional) or an array of integers 0..255"}
		}
		s := map[string]any{"type": "array", "items": JSONSchema(t.Elem)}
		if t.Len > 0 {
			s["minItems"] = int64(t.Len)
			s["maxItems"] = int64(t.Len)
		}
		return s
	case KindTuple:
		items := make([]any, len(t.Tuple))
		for i, e := range t.Tuple {
			items[i] = JSONSchema(e)
		}
		s := map[string]any{"type": "array", "items": false, "minItems": int64(len(items)), "maxItems": int64(len(items))}
		if len(items) > 0 {
			s["prefixItems"] = items
		}
		return s
	case KindRecord:
		props := map[string]any{}
		required := []any{}
		for _, f := range t.Fields {
			ps := JSONSchema(f.Type)
			if f.Docs != "" {
				ps["description"] = f.Docs
			}
			props[f.Name] = ps
			if !isOption(f.Type) {
				required = append(required, f.Name)
			}
		}
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	case KindOption:
		inner := JSONSchema(t.Elem)
		if nullable(t.Elem) {
			inner = map[string]any{"type": "object", "properties": map[string]any{"some": inner},
				"required": []any{"some"}, "additionalProperties": false}
		}
		return map[string]any{"anyOf": []any{map[string]any{"type": "null"}, inner}}
	case KindEnum:
		return namesSchema(t)
	case KindFlags:
		return map[string]any{"type": "array", "items": namesSchema(t), "uniqueItems": true}
	case KindVariant:
		var alts []any
		for _, c := range t.Cases {
			props := map[string]any{"tag": map[string]any{"const": c.Name}}
			req := []any{"tag"}
			if c.Type != nil {
				props["val"] = JSONSchema(c.Type)
				req = append(req, "val")
			}
			alt := map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
			if c.Docs != "" {
				alt["description"] = c.Docs
			}
			alts = append(alts, alt)
		}
		return map[string]any{"oneOf": alts}
	case KindResult:
		side := func(name string, st *Type) any {
			return map[string]any{"type": "object", "properties": map[string]any{name: JSONSchema(st)},
				"required": []any{name}, "additionalProperties": false}
		}
		return map[string]any{"oneOf": []any{side("ok", t.Ok), side("err", t.Err)}}
	case KindMap:
		if isStringKey(t) {
			return map[string]any{"type": "object", "additionalProperties": JSONSchema(t.Elem)}
		}
		return map[string]any{"type": "array", "items": map[string]any{"type": "array",
			"prefixItems": []any{JSONSchema(t.Key), JSONSchema(t.Elem)}, "items": false, "minItems": int64(2), "maxItems": int64(2)}}
	}
	return map[string]any{"not": map[string]any{}, "description": t.Kind.String() + " values have no JSON form"}
}

// namesSchema is the schema of one of t's enum cases or flags:
// {"type":"string","enum":[names]}, or, when a name has a doc comment,
// {"type":"string","oneOf":[{"const":name,"description":docs}, …]}, which
// accepts the same strings and carries the docs as record fields' and
// variant cases' schemas do (an "enum" list has no place for them).
func namesSchema(t *Type) map[string]any {
	if t.NameDocs == nil {
		return map[string]any{"type": "string", "enum": strs(t.Names)}
	}
	alts := make([]any, len(t.Names))
	for i, n := range t.Names {
		alt := map[string]any{"const": n}
		if i < len(t.NameDocs) && t.NameDocs[i] != "" {
			alt["description"] = t.NameDocs[i]
		}
		alts[i] = alt
	}
	return map[string]any{"type": "string", "oneOf": alts}
}

func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// FuncParamsSchema is the schema of a tool's params: an object with one
// property per parameter (named as in WIT), each required unless its type is
// an option, and no other properties.
func FuncParamsSchema(f *Func) map[string]any {
	props := map[string]any{}
	required := []any{}
	for _, p := range f.Params {
		props[p.Name] = JSONSchema(p.Type)
		if !isOption(p.Type) {
			required = append(required, p.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	if f.Docs != "" {
		s["description"] = f.Docs
	}
	return s
}

// FuncResultSchema is the schema of a tool's successful return value. A
// top-level result<T, E> is unwrapped to T (null when T is absent): its
// error side becomes a ProviderError carrying E (see FuncResultToJSON). A
// function without a result returns null.
func FuncResultSchema(f *Func) map[string]any {
	if f.Result == nil {
		return map[string]any{"type": "null"}
	}
	if f.Result.Kind == KindResult {
		return JSONSchema(f.Result.Ok)
	}
	return JSONSchema(f.Result)
}

// FuncErrorSchema is the schema of the ProviderError data of f (the E of a
// top-level result<T, E>), or nil when f cannot fail that way.
func FuncErrorSchema(f *Func) map[string]any {
	if f.Result == nil || f.Result.Kind != KindResult {
		return nil
	}
	return JSONSchema(f.Result.Err)
}

func isOption(t *Type) bool { return t != nil && t.Kind == KindOption }

// isStringKey tells whether a map's keys are strings (a JSON object).
func isStringKey(t *Type) bool { return t.Key != nil && t.Key.Kind == KindString }

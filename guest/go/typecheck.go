package aios

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

var (
	jsonMarshaler     = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler   = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler     = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler   = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType          = reflect.TypeFor[time.Time]()
	typeProblemFormat = "aios: tool %s: HandleFunc's %s type %v cannot be %s JSON: %s"
)

// checkTyped panics, naming the tool, when a typed handler's params type
// In or result type Out holds something encoding/json cannot decode or
// encode (a channel, a function, a complex number, a map key that is not a
// string, an integer or the TextUnmarshaler (In) or TextMarshaler (Out) encoding/json uses; in In, an interface with methods,
// such as io.Reader, or an embedded pointer to an unexported struct), when In is a struct without a
// field for a property the tool's Parameters schema requires (encoding/json
// would drop that value, which every caller must send), or when a property's
// schema type cannot decode into its field (integer into a string, number
// into an int, anything but a string into a type read with UnmarshalText). All used to show only at call time, as the caller's
// InvalidParams, or never.
func checkTyped(t Tool, in, out reflect.Type) {
	if why := jsonTypeProblem(in, true, nil); why != "" {
		panic(fmt.Sprintf(typeProblemFormat, t.Name, "params", in, "decoded from", why))
	}
	if why := jsonTypeProblem(out, false, nil); why != "" {
		panic(fmt.Sprintf(typeProblemFormat, t.Name, "result", out, "encoded as", why))
	}
	checkReturns(t, out)
	if typ := schemaType(t.Parameters); typ != "" {
		if why := fieldFits(typ, jsonField{typ: in}); why != "" {
			panic(fmt.Sprintf("aios: tool %s: its params are a JSON value of type %q (its Parameters schema's), but HandleFunc's params type %v cannot take one: %s",
				t.Name, typ, in, why))
		}
	}
	checkParams(t, in, in, t.Parameters, "", "")
}

// checkParams panics, naming the tool and the property's path (its names
// from the top of the params, an array's items as *), when schema, the
// schema of a value HandleFunc's params type decodes into Go type typ,
// gives a property a type the Go value that takes it cannot decode, or
// requires a property a struct has no field for. It walks properties of
// nested objects and the items of arrays: a mismatch there failed every
// call as the caller's InvalidParams as one at the top did. goPath is the
// Go selector of typ from the params type ("", "Opts.", "Items[].").
func checkParams(t Tool, in, typ reflect.Type, schema map[string]any, path, goPath string) {
	top := typ == in
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if implementsAny(typ, jsonUnmarshaler, textUnmarshaler) {
		return
	}
	if typ.Kind() == reflect.Array {
		if why := arrayFits(schema, typ.Len()); why != "" {
			panic(fmt.Sprintf("aios: tool %s: its Parameters schema %s %q, but HandleFunc's params type %v decodes it into %s, of type %v, which takes exactly %d items: encoding/json drops the items past them and leaves missing ones zero, without an error; give %q \"minItems\": %d and \"maxItems\": %d, or make the Go type a slice",
				t.Name, why, strings.TrimSuffix(path, "/"), in, goValue(goPath, "the params"), typ, typ.Len(), strings.TrimSuffix(path, "/"), typ.Len(), typ.Len()))
		}
	}
	if items, _ := schema["items"].(map[string]any); items != nil && (typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array) {
		// The items' own type too: only their properties were judged,
		// and a []int under items of type "string" failed every call
		// that sent one as the caller's InvalidParams.
		if it := schemaType(items); it != "" {
			if why := fieldFits(it, jsonField{typ: typ.Elem()}); why != "" {
				panic(fmt.Sprintf("aios: tool %s: its Parameters schema gives %q the type %q, but HandleFunc's params type %v decodes it into an element of %s, of type %v: %s",
					t.Name, path+"*", it, in, goValue(goPath, "the params"), typ.Elem(), why))
			}
		}
		if kw, member, why := valuesFit(items, jsonField{typ: typ.Elem()}); why != "" {
			panic(fmt.Sprintf("aios: tool %s: its Parameters schema lists %s in the %s of %q, but HandleFunc's params type %v decodes it into an element of %s, of type %v: %s",
				t.Name, member, kw, path+"*", in, goValue(goPath, "the params"), typ.Elem(), why))
		}
		if why := formatFits(items, typ.Elem()); why != "" {
			panic(fmt.Sprintf("aios: tool %s: its Parameters schema gives %q the format %q, but HandleFunc's params type %v decodes it into an element of %s, of type %v: %s",
				t.Name, path+"*", items["format"], in, goValue(goPath, "the params"), typ.Elem(), why))
		}
		checkParams(t, in, typ.Elem(), items, path+"*/", goPath+"[].")
		return
	}
	var fields []jsonField
	switch typ.Kind() {
	case reflect.Struct:
		fields = jsonFields(typ)
	case reflect.Map:
	default:
		return
	}
	// fieldOf is the field encoding/json decodes property k into: a
	// struct's field, or a map's values.
	fieldOf := func(k string) (jsonField, bool) {
		if typ.Kind() == reflect.Map {
			return jsonField{name: k, goName: goPath + "[" + strconv.Quote(k) + "]", typ: typ.Elem()}, true
		}
		f, ok := fieldFor(fields, k)
		f.goName = goPath + f.goName
		return f, ok
	}
	props, _ := schema["properties"].(map[string]any)
	req, _ := schema["required"].([]any)
	if typ.Kind() == reflect.Map {
		// A map with integer keys takes only members named by an
		// integer of its key type: a property or required name that is
		// not one failed every call that sent it.
		names := slices.Sorted(maps.Keys(props))
		for _, r := range req {
			if p, ok := r.(string); ok {
				names = append(names, p)
			}
		}
		for _, k := range names {
			if why := keyFits(typ.Key(), k); why != "" {
				panic(fmt.Sprintf("aios: tool %s: its Parameters schema names a property %q, but HandleFunc's params type %v decodes it into %s, whose key type %v %s",
					t.Name, path+k, in, goValue(goPath, "the params"), typ.Key(), why))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		checkProperty(t, in, typ, fieldOf, path, k, props[k])
	}
	if typ.Kind() == reflect.Map {
		// encoding/json decodes every member into a map's values, so
		// the schemas additionalProperties and patternProperties give
		// members apply to them too (a struct ignores a member it has
		// no field for). Their path is "*".
		checkProperty(t, in, typ, fieldOf, path, "*", schema["additionalProperties"])
		pp, _ := schema["patternProperties"].(map[string]any)
		for _, p := range slices.Sorted(maps.Keys(pp)) {
			checkProperty(t, in, typ, fieldOf, path, "*", pp[p])
		}
	}
	if typ.Kind() != reflect.Struct || len(req) == 0 {
		return
	}
	var names []string
	for _, f := range fields {
		names = append(names, f.name)
	}
	sort.Strings(names)
	shown := typ
	if top {
		shown = in // as the author wrote it, *In or In
	}
	for _, r := range req {
		p, ok := r.(string)
		if _, found := fieldFor(fields, p); !ok || found {
			continue
		}
		panic(fmt.Sprintf("aios: tool %s: its Parameters schema requires %q, but HandleFunc's params type %v has no field for it (its JSON field names: %s): encoding/json would drop the value; %s",
			t.Name, path+p, shown, strings.Join(names, ", "), fieldAdvice(typ, p)))
	}
}

// schemaType is the type schema s gives its values, for judging a Go
// type against it: its "type" when a string, the one type of a list
// holding it and "null" ({"type": ["string", "null"]}, as generators
// write a nullable type: it was not judged at all, TestNullableTypeListChecked;
// null decodes into any field), else "" (a union of several types is
// left to the host).
func schemaType(s map[string]any) string {
	switch ty := s["type"].(type) {
	case string:
		return ty
	case []any:
		one := ""
		for _, x := range ty {
			switch x {
			case "null":
			default:
				if one != "" {
					return ""
				}
				one, _ = x.(string)
			}
		}
		return one
	}
	return ""
}

// valuesFit says why a value schema s lists in its enum or as its const
// cannot decode into field f (its type alone was judged, and an enum
// written without one, {"enum": ["asc", "desc"]} over an int field,
// failed every call sending a value it lists): the keyword, the value as
// JSON and the reason, or "" for all three.
func valuesFit(s map[string]any, f jsonField) (kw, member, why string) {
	kw, vals := listedValues(s)
	for _, v := range vals {
		if why := fieldFits(jsonTypeOf(v), f); why != "" {
			b, _ := json.Marshal(v)
			return kw, string(b), why
		}
	}
	return "", "", ""
}

// listedValues is the keyword ("const" or "enum") and the values schema
// s lists with it, or "".
func listedValues(s map[string]any) (string, []any) {
	if c, ok := s["const"]; ok {
		return "const", []any{c}
	}
	if e, ok := s["enum"].([]any); ok {
		return "enum", e
	}
	return "", nil
}

// jsonTypeOf is the JSON Schema type of canonical value v: "integer" for
// a whole number, "number" for one with a fraction.
func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64, uint64:
		return "integer"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// arrayFits says how schema, describing an array (its type "array", or
// items, prefixItems, minItems or maxItems given), lets through arrays
// of another length than n, the length of the Go array that takes them,
// or "" when it holds them to n items or describes no array.
func arrayFits(schema map[string]any, n int) string {
	array := false
	switch ty := schema["type"].(type) {
	case string:
		array = ty == "array"
	case []any:
		array = slices.Contains(ty, any("array"))
	}
	for _, k := range []string{"items", "prefixItems", "minItems", "maxItems"} {
		if _, ok := schema[k]; ok {
			array = true
		}
	}
	if !array {
		return ""
	}
	count := func(k string) (float64, bool) {
		switch x := schema[k].(type) {
		case int64:
			return float64(x), true
		case uint64:
			return float64(x), true
		case float64:
			return x, true
		}
		return 0, false
	}
	most, bounded := count("maxItems")
	if items, ok := schema["items"].(bool); ok && !items {
		prefix, _ := schema["prefixItems"].([]any)
		if !bounded || float64(len(prefix)) < most {
			most, bounded = float64(len(prefix)), true
		}
	}
	switch least, _ := count("minItems"); {
	case !bounded:
		return "sets no maxItems for"
	case most > float64(n):
		return fmt.Sprintf("lets through arrays of %v items (maxItems) at", most)
	case least < float64(n):
		return fmt.Sprintf("lets through arrays of %v items (minItems) at", least)
	}
	return ""
}

// keyFits says why encoding/json cannot decode a member named name into a
// map key of type kt (an integer type, which takes a decimal integer in its
// range only), or "".
func keyFits(kt reflect.Type, name string) string {
	if implementsAny(kt, textUnmarshaler) {
		return "" // its UnmarshalText judges
	}
	switch kt.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, err := strconv.ParseInt(name, 10, 64); err != nil || kt.OverflowInt(n) {
			hi := int64(^uint64(0) >> (65 - kt.Bits()))
			return fmt.Sprintf("takes a member named by a decimal integer from %d to %d only", -hi-1, hi)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if n, err := strconv.ParseUint(name, 10, 64); err != nil || kt.OverflowUint(n) {
			return fmt.Sprintf("takes a member named by a decimal integer from 0 to %d only", ^uint64(0)>>(64-kt.Bits()))
		}
	}
	return ""
}

// checkProperty is checkParams's check of the schema s of property k (of
// a value of Go type typ, whose fields fieldOf finds) against the Go
// value that takes it; s other than a map schema is not judged.
func checkProperty(t Tool, in, typ reflect.Type, fieldOf func(string) (jsonField, bool), path, k string, s any) {
	ps, _ := s.(map[string]any)
	f, ok := fieldOf(k)
	if !ok || ps == nil {
		return
	}
	if pt := schemaType(ps); pt != "" {
		if why := fieldFits(pt, f); why != "" {
			panic(fmt.Sprintf("aios: tool %s: its Parameters schema gives %q the type %q, but HandleFunc's params type %v decodes it into %s of type %v: %s",
				t.Name, path+k, pt, in, fieldName(typ, f), f.typ, why))
		}
	}
	if why := formatFits(ps, f.typ); why != "" {
		panic(fmt.Sprintf("aios: tool %s: its Parameters schema gives %q the format %q, but HandleFunc's params type %v decodes it into %s of type %v: %s",
			t.Name, path+k, ps["format"], in, fieldName(typ, f), f.typ, why))
	}
	if kw, member, why := valuesFit(ps, f); why != "" {
		panic(fmt.Sprintf("aios: tool %s: its Parameters schema lists %s in the %s of %q, but HandleFunc's params type %v decodes it into %s of type %v: %s",
			t.Name, member, kw, path+k, in, fieldName(typ, f), f.typ, why))
	}
	if !f.quoted {
		checkParams(t, in, f.typ, ps, path+k+"/", f.goName+".")
	}
}

// formatFits says why a string of the format schema s gives cannot decode
// into Go type typ, or "": time.Time reads RFC 3339 date-time text only, so
// a "date" or "time" property failed every call that sent one (its type
// "string" fits).
func formatFits(s map[string]any, typ reflect.Type) string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch f, _ := s["format"].(string); {
	case typ != timeType:
	case f == "date" || f == "time" || f == "duration":
		return fmt.Sprintf("time.Time's UnmarshalJSON reads an RFC 3339 date-time only (2006-01-02T15:04:05Z), never a %s: give the property the format \"date-time\", or the field the type string", f)
	}
	return ""
}

// fieldName names f, which takes a property of a value of Go type typ, in
// checkParams's panic: "field Opts.Level", or "the values of map[string]int64".
func fieldName(typ reflect.Type, f jsonField) string {
	if typ.Kind() == reflect.Map {
		return "the values of " + typ.String()
	}
	return "field " + f.goName
}

// checkReturns panics, naming the tool, when a typed handler's result type
// out is a struct that encoding/json writes without a property the tool's
// Returns schema requires: no field has that exact name (encoding, unlike
// decoding, is case-sensitive: Sum is written "Sum"), which fails every
// call, or its field has omitempty or omitzero, which fails the calls whose
// value is zero. The host holds every result to Returns (InvalidResult).
func checkReturns(t Tool, out reflect.Type) {
	if pt := schemaType(t.Returns); knownType(pt) {
		if w := writtenAs(jsonField{typ: out}); w != "" && !fitsWritten(w, pt) {
			panic(fmt.Sprintf("aios: tool %s: its Returns schema's type is %q, but HandleFunc's result type %v is written as a JSON %s: the host would refuse every result",
				t.Name, pt, out, w))
		}
	}
	checkReturnsAt(t, out, out, t.Returns, "", "")
}

// fitsWritten reports whether a value encoding/json writes as a JSON w
// (writtenAs) may be of schema type typ.
func fitsWritten(w, typ string) bool {
	return w == typ || w == "integer" && typ == "number" || w == "number" && typ == "integer"
}

// checkReturnsAt is checkReturns for the value of Go type typ that schema
// describes, at path in the result (its property names from the top, an
// array's items as *; goPath the Go selector of typ, "Stats."): the
// properties of nested objects and the items of arrays are held to their
// schemas' required lists as the top level is.
func checkReturnsAt(t Tool, out, typ reflect.Type, schema map[string]any, path, goPath string) {
	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == nil || implementsAny(typ, jsonMarshaler, textMarshaler) {
		return
	}
	// elemWritten panics when schema s gives the elements of typ (an
	// array's items, a map's members), at path p, a type encoding/json
	// never writes them as: only their properties were judged, and the
	// host refused every result holding one.
	elemWritten := func(s map[string]any, p string) {
		pt := schemaType(s)
		if w := writtenAs(jsonField{typ: typ.Elem()}); w != "" && knownType(pt) && !fitsWritten(w, pt) {
			panic(fmt.Sprintf("aios: tool %s: its Returns schema gives %q the type %q, but HandleFunc's result type %v writes it from an element of %s, of type %v, as a JSON %s: the host would refuse every result that has one",
				t.Name, p, pt, out, goValue(goPath, "the result"), typ.Elem(), w))
		}
	}
	if items, _ := schema["items"].(map[string]any); items != nil && (typ.Kind() == reflect.Slice && typ.Elem().Kind() != reflect.Uint8 || typ.Kind() == reflect.Array) {
		elemWritten(items, path+"*")
		checkReturnsAt(t, out, typ.Elem(), items, path+"*/", goPath+"[].")
		return
	}
	if typ.Kind() == reflect.Map {
		// Every member is one of the map's values: each schema a
		// member may get applies to them.
		props, _ := schema["properties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if ps, _ := props[k].(map[string]any); ps != nil {
				elemWritten(ps, path+k)
				checkReturnsAt(t, out, typ.Elem(), ps, path+k+"/", goPath+"["+strconv.Quote(k)+"].")
			}
		}
		if ps, _ := schema["additionalProperties"].(map[string]any); ps != nil {
			elemWritten(ps, path+"*")
			checkReturnsAt(t, out, typ.Elem(), ps, path+"*/", goPath+"[*].")
		}
		pp, _ := schema["patternProperties"].(map[string]any)
		for _, p := range slices.Sorted(maps.Keys(pp)) {
			if ps, _ := pp[p].(map[string]any); ps != nil {
				elemWritten(ps, path+"*")
				checkReturnsAt(t, out, typ.Elem(), ps, path+"*/", goPath+"[*].")
			}
		}
		return
	}
	if typ.Kind() != reflect.Struct {
		return
	}
	fields := jsonFields(typ)
	byName := func(p string) *jsonField {
		for i := range fields {
			if fields[i].name == p {
				return &fields[i]
			}
		}
		return nil
	}
	req, _ := schema["required"].([]any)
	for _, r := range req {
		p, ok := r.(string)
		if !ok {
			continue
		}
		switch f := byName(p); {
		case f == nil:
			var names []string
			for _, f := range fields {
				names = append(names, f.name)
			}
			sort.Strings(names)
			in := out
			if path != "" {
				in = typ
			}
			panic(fmt.Sprintf("aios: tool %s: its Returns schema requires %q, but HandleFunc's result type %v has no field encoding/json writes as %q (its JSON field names: %s; encoding/json writes the tag's name, else the Go name, exactly): the host would refuse every result; %s",
				t.Name, path+p, in, p, strings.Join(names, ", "), fieldAdvice(typ, p)))
		case f.omit == "omitzero" || f.omit == "omitempty" && omittable(f.typ):
			panic(fmt.Sprintf("aios: tool %s: its Returns schema requires %q, but field %s of HandleFunc's result type %v has the %s option: a result whose %s is %s leaves %q out and the host refuses it; drop %s",
				t.Name, path+p, goPath+f.goName, out, f.omit, goPath+f.goName, emptyOf(f.typ), p, f.omit))
		}
	}
	props, _ := schema["properties"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		ps, _ := props[k].(map[string]any)
		f := byName(k)
		if f == nil || ps == nil {
			continue
		}
		if pt := schemaType(ps); pt != "" {
			if w := writtenAs(*f); w != "" && !fitsWritten(w, pt) && knownType(pt) {
				panic(fmt.Sprintf("aios: tool %s: its Returns schema gives %q the type %q, but field %s of HandleFunc's result type %v of type %v is written as a JSON %s: the host would refuse every result that has it",
					t.Name, path+k, pt, goPath+f.goName, out, f.typ, w))
			}
		}
		if kw, vals := listedValues(ps); kw != "" {
			// A value of the enum (or the const) must be one the field
			// is written as: an enum written without a type judged
			// nothing, and every result was refused.
			w, fits := writtenAs(*f), false
			for _, v := range vals {
				fits = fits || w == "" || v == nil || fitsWritten(w, jsonTypeOf(v))
			}
			if !fits {
				panic(fmt.Sprintf("aios: tool %s: its Returns schema's %s of %q lists no JSON %s, but field %s of HandleFunc's result type %v of type %v is written as one: the host would refuse every result that has it",
					t.Name, kw, path+k, w, goPath+f.goName, out, f.typ))
			}
		}
		if !f.quoted {
			checkReturnsAt(t, out, f.typ, ps, path+k+"/", goPath+f.goName+".")
		}
	}
}

// goValue names the Go value at selector goPath ("Tags.", "Opts.Items[].")
// in checkParams's and checkReturnsAt's panics: "field Tags", or top (the
// params or the result itself) at the top.
func goValue(goPath, top string) string {
	if p := strings.TrimSuffix(goPath, "."); p != "" {
		return "field " + p
	}
	return top
}

// knownType reports whether typ is a JSON Schema type other than null.
func knownType(typ string) bool {
	switch typ {
	case "string", "integer", "number", "boolean", "array", "object":
		return true
	}
	return false
}

// writtenAs is the JSON type encoding/json writes field f of a result as,
// when it is not null: "" when that is not sure (an interface, a type
// that writes itself as JSON). A float is "number", though a whole one
// may pass as an integer.
func writtenAs(f jsonField) string {
	t := f.typ
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		return "string" // its MarshalJSON writes RFC 3339 text
	}
	if t.Kind() == reflect.Interface || implementsAny(t, jsonMarshaler) {
		return ""
	}
	k := t.Kind()
	if f.quoted && (k == reflect.Bool || k >= reflect.Int && k <= reflect.Float64 || k == reflect.String) || implementsAny(t, textMarshaler) {
		return "string"
	}
	switch {
	case t == reflect.TypeFor[json.Number]():
		return "number" // the number it holds, integer or not
	case k == reflect.Bool:
		return "boolean"
	case k >= reflect.Int && k <= reflect.Uintptr:
		return "integer"
	case k == reflect.Float32 || k == reflect.Float64:
		return "number"
	case k == reflect.String:
		return "string"
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !implementsAny(t.Elem(), jsonMarshaler, textMarshaler):
		return "string"
	case k == reflect.Slice || k == reflect.Array:
		return "array"
	case k == reflect.Map || k == reflect.Struct:
		return "object"
	}
	return ""
}

// fieldAdvice is what to do for struct typ to have a field for property
// p: export the field meant for it when that one is unexported (its tag
// changes nothing then), else tag a field with p.
func fieldAdvice(typ reflect.Type, p string) string {
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == p || name == "" && strings.EqualFold(f.Name, p) {
			return fmt.Sprintf("field %s is unexported: encoding/json neither reads nor writes it, whatever its tag; export it (%s)", f.Name, strings.ToUpper(f.Name[:1])+f.Name[1:])
		}
	}
	return fmt.Sprintf("tag a field `json:%q`", p)
}

// omittable reports whether omitempty leaves a value of type t out when
// it is empty (never a struct, nor a non-empty array).
func omittable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		return false
	case reflect.Array:
		return t.Len() == 0
	}
	return true
}

// emptyOf names the value omitempty leaves out for type t.
func emptyOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "false"
	case reflect.String:
		return `""`
	case reflect.Pointer, reflect.Interface:
		return "nil"
	case reflect.Slice, reflect.Map, reflect.Array:
		return "empty"
	case reflect.Struct:
		return "its zero value"
	}
	return "0"
}

func implementsAny(t reflect.Type, ifaces ...reflect.Type) bool {
	for _, i := range ifaces {
		if t.Implements(i) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(i)) {
			return true
		}
	}
	return false
}

// jsonTypeProblem describes the first part of t encoding/json cannot
// handle (decode when in, else encode), with its path, or "".
func jsonTypeProblem(t reflect.Type, in bool, seen map[reflect.Type]bool) string {
	if t == nil {
		return ""
	}
	custom := []reflect.Type{jsonMarshaler, textMarshaler}
	if in {
		custom = []reflect.Type{jsonUnmarshaler, textUnmarshaler}
	}
	if implementsAny(t, custom...) {
		return ""
	}
	if seen[t] {
		return ""
	}
	if seen == nil {
		seen = map[reflect.Type]bool{}
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return fmt.Sprintf("a %v has no JSON form", t)
	case reflect.Interface:
		if in && t.NumMethod() > 0 {
			// Written by its value, but never read: encoding/json
			// cannot tell which type to make.
			return fmt.Sprintf("a %v is an interface with methods, which encoding/json cannot decode into (use a concrete type, or any)", t)
		}
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return jsonTypeProblem(t.Elem(), in, seen)
	case reflect.Map:
		k := t.Key()
		switch k.Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			// encoding/json reads a key with UnmarshalText only, and
			// writes one with MarshalText only, of the key's own
			// method set (a map key is not addressable).
			if in && !implementsAny(k, textUnmarshaler) {
				return fmt.Sprintf("a map key of type %v (JSON object keys are strings: use a string, an integer or an encoding.TextUnmarshaler)", k)
			}
			if !in && !k.Implements(textMarshaler) {
				return fmt.Sprintf("a map key of type %v (JSON object keys are strings: use a string, an integer or an encoding.TextMarshaler)", k)
			}
		}
		return jsonTypeProblem(t.Elem(), in, seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			if tag := f.Tag.Get("json"); tag == "-" {
				continue
			}
			if tagName, _, _ := strings.Cut(f.Tag.Get("json"), ","); in && f.Anonymous && !f.IsExported() && f.Type.Kind() == reflect.Pointer &&
				f.Type.Elem().Kind() == reflect.Struct && (tagName != "" || len(jsonFields(f.Type.Elem())) > 0) {
				// encoding/json reads its fields, but cannot make
				// the struct they live in: every call sending one of
				// them failed as the caller's InvalidParams; named by
				// its tag, it is a field encoding/json panics setting
				// ("reflect.Value.Set using value obtained using
				// unexported field"), every call sending it crashed.
				return fmt.Sprintf("embedded field %s is a pointer to an unexported struct, which encoding/json cannot set (\"cannot set embedded pointer to unexported struct\"): embed it by value, or export its type", f.Type)
			}
			if why := jsonTypeProblem(f.Type, in, seen); why != "" {
				return "field " + f.Name + ": " + why
			}
		}
	}
	return ""
}

// jsonField is a field encoding/json decodes into: its JSON name, Go name
// and type, and whether its tag has the ",string" option.
type jsonField struct {
	name, goName string
	typ          reflect.Type
	quoted       bool
	omit         string // "omitempty" or "omitzero" when its tag says so
	depth        int    // 0 for t's own fields, 1 for an embedded struct's…
	tagged       bool   // its tag names it
}

// jsonFields lists the fields encoding/json reads into and writes from
// struct t, by its rules: embedded structs' fields included, level by
// level, each embedded type once (a type that embeds itself through a
// pointer does not recurse), and of the fields of one JSON name the
// shallowest, a tagged one among equals, none when still ambiguous (an
// outer field shadows an embedded one of its name; a struct embedded twice
// at one depth, through two embedded structs, has each of its fields
// twice there, so none).
func jsonFields(t reflect.Type) []jsonField {
	var all []jsonField
	visited := map[reflect.Type]bool{}
	count := map[reflect.Type]int{}
	for depth, level := 0, []reflect.Type{t}; len(level) > 0; depth++ {
		var next []reflect.Type
		nextCount := map[reflect.Type]int{}
		for _, st := range level {
			if visited[st] {
				continue
			}
			visited[st] = true
			for i := 0; i < st.NumField(); i++ {
				f := st.Field(i)
				tag := f.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
					if nextCount[ft]++; nextCount[ft] == 1 {
						next = append(next, ft)
					}
					continue
				}
				if !f.IsExported() && !(f.Anonymous && ft.Kind() == reflect.Struct) {
					// An unexported embedded struct named by its tag
					// (struct{ inner `json:"in"` }) is a field to
					// encoding/json, which reads and writes it.
					continue
				}
				tagged := name != ""
				if !tagged {
					name = f.Name
				}
				quoted, omit := false, ""
				for _, o := range strings.Split(opts, ",") {
					quoted = quoted || o == "string"
					if o == "omitempty" || o == "omitzero" {
						omit = o
					}
				}
				jf := jsonField{name: name, goName: f.Name, typ: f.Type, quoted: quoted, omit: omit, depth: depth, tagged: tagged}
				all = append(all, jf)
				if count[st] > 1 { // as encoding/json: a second copy makes it ambiguous
					all = append(all, jf)
				}
			}
		}
		level, count = next, nextCount
	}
	var fields []jsonField
	for i, f := range all {
		best, ambiguous := i, false
		for j, g := range all {
			switch {
			case j == i || g.name != f.name:
			case g.depth < all[best].depth || g.depth == all[best].depth && g.tagged && !all[best].tagged:
				best, ambiguous = j, false
			case g.depth == all[best].depth && g.tagged == all[best].tagged:
				ambiguous = true
			}
		}
		if best == i && !ambiguous {
			fields = append(fields, f)
		}
	}
	return fields
}

// fieldFor is the field encoding/json decodes key p into (an exact name
// match, else a case-insensitive one).
func fieldFor(fields []jsonField, p string) (jsonField, bool) {
	for _, f := range fields {
		if f.name == p {
			return f, true
		}
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, p) {
			return f, true
		}
	}
	return jsonField{}, false
}

// fieldFits says why a JSON value of schema type typ cannot decode into
// field f, or "". Only sure mismatches count: interfaces, custom
// unmarshalers and types the schema does not name are not judged.
func fieldFits(typ string, f jsonField) string {
	t := f.typ
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType && typ != "string" && knownType(typ) {
		return "time.Time's UnmarshalJSON takes an RFC 3339 string only: give the property the type \"string\", or the field a number type"
	}
	if t.Kind() == reflect.Interface || implementsAny(t, jsonUnmarshaler) {
		return ""
	}
	k := t.Kind()
	isInt := k >= reflect.Int && k <= reflect.Uintptr
	// json.Number, a string kind, takes any JSON number.
	isFloat := k == reflect.Float32 || k == reflect.Float64 || t == reflect.TypeFor[json.Number]()
	if f.quoted && (isInt || isFloat || k == reflect.Bool || k == reflect.String) {
		if typ != "string" {
			return "its tag's \",string\" option wants the value as a JSON string"
		}
		return ""
	}
	if implementsAny(t, textUnmarshaler) {
		// encoding/json calls UnmarshalText with a JSON string only:
		// a number, boolean, array or object fails whatever t's kind.
		switch typ {
		case "integer", "number", "boolean", "array", "object":
			return "its type has UnmarshalText (and no UnmarshalJSON), which encoding/json calls with a JSON string only: give the property the type \"string\", or the Go type an UnmarshalJSON"
		}
	}
	switch typ {
	case "string":
		if k == reflect.String || (k == reflect.Slice && t.Elem().Kind() == reflect.Uint8) || implementsAny(t, textUnmarshaler) {
			return ""
		}
	case "integer":
		if isInt || isFloat {
			return ""
		}
	case "number":
		if isFloat {
			return ""
		}
		if isInt {
			return "a number with a fraction (1.5) does not fit an integer field: use float64, or the schema type \"integer\""
		}
	case "boolean":
		if k == reflect.Bool {
			return ""
		}
	case "array":
		if k == reflect.Slice || k == reflect.Array {
			return ""
		}
	case "object":
		if k == reflect.Map || k == reflect.Struct {
			return ""
		}
	default: // "null", or not a JSON Schema type: the host judges the schema
		return ""
	}
	return "encoding/json cannot decode a JSON " + typ + " into it"
}

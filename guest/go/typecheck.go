package aios

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

var (
	jsonMarshaler     = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler   = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler     = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler   = reflect.TypeFor[encoding.TextUnmarshaler]()
	typeProblemFormat = "aios: tool %s: HandleFunc's %s type %v cannot be %s JSON: %s"
)

// checkTyped panics, naming the tool, when a typed handler's params type
// In or result type Out holds something encoding/json cannot decode or
// encode (a channel, a function, a complex number, a map key that is not a
// string, an integer or a TextMarshaler), or when In is a struct without a
// field for a property the tool's Parameters schema requires: encoding/json
// would drop that value, which every caller must send. Both used to show
// only at call time, the first as the caller's InvalidParams.
func checkTyped(t Tool, in, out reflect.Type) {
	if why := jsonTypeProblem(in, true, nil); why != "" {
		panic(fmt.Sprintf(typeProblemFormat, t.Name, "params", in, "decoded from", why))
	}
	if why := jsonTypeProblem(out, false, nil); why != "" {
		panic(fmt.Sprintf(typeProblemFormat, t.Name, "result", out, "encoded as", why))
	}
	st := in
	for st != nil && st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st == nil || st.Kind() != reflect.Struct || implementsAny(st, jsonUnmarshaler, textUnmarshaler) {
		return
	}
	req, _ := t.Parameters["required"].([]any)
	if len(req) == 0 {
		return
	}
	names := jsonFieldNames(st, nil)
	for _, r := range req {
		p, ok := r.(string)
		if !ok || hasField(names, p) {
			continue
		}
		sort.Strings(names)
		panic(fmt.Sprintf("aios: tool %s: its Parameters schema requires %q, but HandleFunc's params type %v has no field for it (its JSON field names: %s): encoding/json would drop the value; tag a field `json:%q`",
			t.Name, p, in, strings.Join(names, ", "), p))
	}
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
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return jsonTypeProblem(t.Elem(), in, seen)
	case reflect.Map:
		k := t.Key()
		switch k.Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			if !implementsAny(k, textMarshaler, textUnmarshaler) {
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
			if why := jsonTypeProblem(f.Type, in, seen); why != "" {
				return "field " + f.Name + ": " + why
			}
		}
	}
	return ""
}

// jsonFieldNames lists the names encoding/json reads into struct t,
// embedded structs' fields included.
func jsonFieldNames(t reflect.Type, names []string) []string {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			names = jsonFieldNames(ft, names)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

// hasField reports whether encoding/json would decode key p into one of
// the fields names (an exact match, else a case-insensitive one).
func hasField(names []string, p string) bool {
	for _, n := range names {
		if n == p || strings.EqualFold(n, p) {
			return true
		}
	}
	return false
}

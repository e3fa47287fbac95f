package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// DecodeTyped fills *dst (the params type of a Go guest's HandleFunc
// handler, of a native tool's native.Typed handler) from the generic
// params, by encoding/json's rules with two exceptions that keep numbers
// exact:
//
//   - a generic value inside dst (an `any` field, a map[string]any or []any
//     anywhere in it) holds the canonical numbers a Handle handler gets:
//     int64, uint64 above the int64 range, float64. encoding/json alone
//     would make every number there a float64, rounding an integer past
//     2^53 (9007199254740993 became 9007199254740992) without a word;
//   - a whole float from 2^53 up is written as the integer it equals
//     (2^60 as 1152921504606846976): encoding/json writes its shortest
//     form, 1152921504606847000, which an int64 field took for another
//     number.
//
// A value that does not fit is named by its JSON pointer in the params
// ("at /items/1/when: parsing time …"): encoding/json names the Go field
// of a type mismatch only, not the one whose ",string" tag, time.Time or
// base64 []byte refused a string.
func DecodeTyped(params any, dst any) error {
	floats := &wholeFloats{}
	v := exactWholeFloats(params, 0, floats)
	if floats.clash() {
		v = floats.tellApart(params, reflect.TypeOf(dst).Elem())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := decodeJSON(b, dst); err != nil {
		t := reflect.TypeOf(dst).Elem()
		// Decodings spent naming the part, and the bytes of JSON they
		// may read: a few times the params' own (each try decodes all
		// of them, so 4096 tries of params whose many elements fail
		// alike took minutes). Past either, err as it is.
		budget, bytesLeft := 4096, 8*len(b)+1<<18
		errOf := func(doc any) (msg string) {
			if budget--; budget < 0 {
				return ""
			}
			// A part alone may panic a type's UnmarshalJSON written for
			// the whole params: it names nothing.
			defer func() {
				if recover() != nil {
					msg = ""
				}
			}()
			b, err := json.Marshal(doc)
			if bytesLeft -= len(b); bytesLeft < 0 {
				budget = -1
				return ""
			}
			if err != nil {
				return ""
			}
			if err := decodeJSON(b, reflect.New(t).Interface()); err != nil {
				return err.Error()
			}
			return ""
		}
		if at := failingPart(v, func(x any) any { return x }, errOf, err.Error(), 0); at != "" && budget >= 0 {
			return fmt.Errorf("at %s: %w", at, err)
		}
		return err
	}
	canonNumbers(reflect.ValueOf(dst), 0, floats)
	return nil
}

func decodeJSON(b []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(dst)
}

// failingPart is the JSON pointer, below v, of the innermost member or
// element whose value fails to decode with the error want: alone (wrap
// places it where v is in the whole params, without its siblings) it fails
// with want, and without it (its siblings kept) it does not, so that a
// member is not blamed for an error about another (a type whose
// UnmarshalJSON wants a member that is missing). "" when none is.
func failingPart(v any, wrap func(any) any, errOf func(any) string, want string, depth int) string {
	if depth > 64 {
		return ""
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			w := func(e any) any { return wrap(map[string]any{k: e}) }
			if errOf(w(x[k])) != want {
				continue
			}
			rest := make(map[string]any, len(x))
			for k2, e := range x {
				if k2 != k {
					rest[k2] = e
				}
			}
			if errOf(wrap(rest)) != want {
				return "/" + pointerToken.Replace(k) + failingPart(x[k], w, errOf, want, depth+1)
			}
		}
	case []any:
		for i, e := range x {
			w := func(e any) any { return wrap([]any{e}) }
			if errOf(w(e)) != want {
				continue
			}
			if errOf(wrap(append(x[:i:i], x[i+1:]...))) != want {
				return "/" + strconv.Itoa(i) + failingPart(e, w, errOf, want, depth+1)
			}
		}
	}
	return ""
}

// pointerToken escapes a JSON pointer token (RFC 6901).
var pointerToken = strings.NewReplacer("~", "~0", "/", "~1")

// wholeFloats notes the literals exactWholeFloats wrote for floats, so
// that canonNumbers makes a float64 of them again where they land in a
// generic value. A float and an integer of one value (2^60.0 and 2^60)
// would be one literal, the integer taken for a float: tellApart writes
// such a float, where it lands in a generic value, as a literal of its own.
type wholeFloats struct {
	lits map[string]float64 // literal written → the float it stands for
	ints map[string]bool    // literals of the params' integers from 2^53 up in magnitude
	// clashing holds the literals of both a float and an integer;
	// exactWholeFloats writes each such float as a mark (markLit).
	clashing map[string]bool
	marks    map[string]string // mark → the float's own literal
	found    map[string]bool   // marks canonNumbers met in a generic value
}

// clash says whether a float and an integer of the params share a literal.
func (w *wholeFloats) clash() bool {
	for lit := range w.lits {
		if w.ints[lit] {
			return true
		}
	}
	return false
}

// markLit is a literal no number exactWholeFloats writes can have (31
// digits: its floats are below 1e21 and integers within 64 bits).
func markLit(i int) string { return fmt.Sprintf("1%030d", i) }

// tellApart is the params to decode when a float and an integer share a
// literal: each such float is written as a mark where that lands in a
// generic value of t (a decoding into a t of its own finds which: an
// integer field given a mark is a type error, which encoding/json
// reports once it has decoded the rest), as its integer literal elsewhere
// (an integer or float field takes it exactly).
func (w *wholeFloats) tellApart(params any, t reflect.Type) any {
	w.clashing = make(map[string]bool)
	for lit := range w.lits {
		if w.ints[lit] {
			w.clashing[lit] = true
		}
	}
	w.lits, w.marks, w.found = nil, map[string]string{}, map[string]bool{}
	v := exactWholeFloats(params, 0, w)
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	probe := reflect.New(t)
	_ = decodeJSON(b, probe.Interface())
	canonNumbers(probe, 0, w)
	unmark(v, w, 0)
	return v
}

// unmark writes the marks of v that canonNumbers did not find in a
// generic value as the literals of their floats. The containers holding
// a mark are exactWholeFloats's copies.
func unmark(v any, w *wholeFloats, depth int) {
	if depth > 600 {
		return
	}
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			if n, ok := e.(json.Number); ok && w.marks[string(n)] != "" && !w.found[string(n)] {
				x[i] = json.Number(w.marks[string(n)])
			} else {
				unmark(e, w, depth+1)
			}
		}
	case map[string]any:
		for k, e := range x {
			if n, ok := e.(json.Number); ok && w.marks[string(n)] != "" && !w.found[string(n)] {
				x[k] = json.Number(w.marks[string(n)])
			} else {
				unmark(e, w, depth+1)
			}
		}
	}
}

// exactWholeFloats returns generic v with every float64 whole and from
// 2^53 up in magnitude replaced by its exact integer literal (a copy of
// the maps and slices holding one; v itself is not changed), and notes
// the literals in w: in a generic value of dst they are floats again. It
// notes the literals of integers from 2^53 up in w too, and writes a
// float whose literal is one of w.clashing as a mark.
func exactWholeFloats(v any, depth int, w *wholeFloats) any {
	if depth > 600 {
		return v
	}
	switch x := v.(type) {
	case int64:
		if x >= 1<<53 || x <= -(1<<53) {
			if w.ints == nil {
				w.ints = map[string]bool{}
			}
			w.ints[strconv.FormatInt(x, 10)] = true
		}
	case uint64:
		if x >= 1<<53 {
			if w.ints == nil {
				w.ints = map[string]bool{}
			}
			w.ints[strconv.FormatUint(x, 10)] = true
		}
	case float64:
		if a := math.Abs(x); a >= 1<<53 && a < 1e21 && a == math.Trunc(a) {
			lit := strconv.FormatFloat(x, 'f', 0, 64)
			if w.clashing[lit] {
				mark := markLit(len(w.marks))
				w.marks[mark] = lit
				lit = mark
			}
			if w.lits == nil {
				w.lits = map[string]float64{}
			}
			w.lits[lit] = x
			return json.Number(lit)
		}
	case []any:
		var out []any
		for i, e := range x {
			if n := exactWholeFloats(e, depth+1, w); out != nil || !same(n, e) {
				if out == nil {
					out = append(make([]any, 0, len(x)), x[:i]...)
				}
				out = append(out, n)
			}
		}
		if out != nil {
			return out
		}
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if n := exactWholeFloats(e, depth+1, w); !same(n, e) {
				if out == nil {
					out = make(map[string]any, len(x))
					for k2, e2 := range x {
						out[k2] = e2
					}
				}
				out[k] = n
			}
		}
		if out != nil {
			return out
		}
	}
	return v
}

// same reports whether exactWholeFloats returned e itself.
func same(n, e any) bool {
	switch e.(type) {
	case float64:
		_, changed := n.(json.Number)
		return !changed
	case []any, map[string]any:
		return reflect.ValueOf(n).UnsafePointer() == reflect.ValueOf(e).UnsafePointer()
	}
	return true
}

var (
	numberType      = reflect.TypeFor[json.Number]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// canonNumbers replaces each json.Number that a decoding with UseNumber
// left in an interface value inside v by its canonical number (a float64
// for a literal of floats). Values of types with their own UnmarshalJSON
// are left as they made themselves.
func canonNumbers(v reflect.Value, depth int, floats *wholeFloats) {
	if depth > 600 || !v.IsValid() {
		return
	}
	if v.Kind() != reflect.Interface {
		t := v.Type()
		if !hasInterface(t, 0) || t.Implements(unmarshalerType) || v.CanAddr() && v.Addr().Type().Implements(unmarshalerType) {
			return
		}
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Type() == numberType {
			if n, ok := number(e.String(), floats); ok && v.CanSet() {
				v.Set(reflect.ValueOf(n))
			}
			return
		}
		switch x := e.Interface().(type) {
		case []any, map[string]any:
			canonGeneric(x, depth+1, floats)
		}
	case reflect.Pointer:
		canonNumbers(v.Elem(), depth+1, floats)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			switch sf := v.Type().Field(i); {
			case sf.IsExported():
				canonNumbers(v.Field(i), depth+1, floats)
			case sf.Anonymous && v.CanAddr():
				// An embedded unexported struct (or pointer to
				// one): encoding/json set its exported fields, so
				// their numbers are canonicalised too. Reached
				// through an unexported field, it is read-only to
				// reflect; the same memory, addressed anew, is not.
				f := v.Field(i)
				canonNumbers(reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), depth+1, floats)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			canonNumbers(v.Index(i), depth+1, floats)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			canonNumbers(e, depth+1, floats)
			v.SetMapIndex(it.Key(), e)
		}
	}
}

// canonGeneric is canonNumbers for a generic []any or map[string]any.
func canonGeneric(v any, depth int, floats *wholeFloats) {
	if depth > 600 {
		return
	}
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			x[i] = canonElem(e, depth, floats)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = canonElem(e, depth, floats)
		}
	}
}

func canonElem(e any, depth int, floats *wholeFloats) any {
	switch y := e.(type) {
	case json.Number:
		if n, ok := number(string(y), floats); ok {
			return n
		}
	case []any, map[string]any:
		canonGeneric(y, depth+1, floats)
	}
	return e
}

// number is the canonical number of literal s: a float64 when s is one
// of the literals exactWholeFloats wrote for floats (a mark is noted as
// found).
func number(s string, floats *wholeFloats) (any, bool) {
	if f, ok := floats.lits[s]; ok {
		if floats.marks[s] != "" {
			floats.found[s] = true
		}
		return f, true
	}
	return Number(s)
}

// hasInterface reports whether a value of type t may hold an interface
// value (so a json.Number in one).
func hasInterface(t reflect.Type, depth int) bool {
	if depth > 32 {
		return true
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return hasInterface(t.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasInterface(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}

package js

import (
	"math"
	"reflect"
	"strconv"

	"github.com/dop251/goja"
)

// JSON.stringify under the provider's memory budget.
//
// goja's JSON.stringify is one native loop: the interrupt that stops a
// call at its deadline or past its memory budget is not seen inside it, so
// JSON.stringify(new Array(2 ** 32 - 1)) would write 2^32 "null"s (tens
// of GB) before anything could stop it, and a value repeating one large
// string many times the same. The replacement runs goja's own
// implementation (same output, same errors) with a replacer function of
// ours, written in Go, which goja calls for every value it is about to
// write (after toJSON and after the caller's own replacer, when there is
// one). It adds up a lower bound of the text each value will produce and
// throws a RangeError before the total passes the budget's characters; it
// also throws once the call has been interrupted (deadline, heap guard),
// so the interrupt takes effect at the next value. One Go call per value
// is a small part of goja's own time per value (BenchmarkBuiltinLimits,
// stringify; docs/js.md).
//
// A replacer given as an array (a property list) cannot be combined with a
// replacer function, so it is done by ours: each object to be written is
// handed to goja as a new plain object holding the listed properties in the
// list's order (what a property list writes), and cycles through such
// copies are found by following the copies back to their originals.
type jsonLimit struct {
	l *limits
	// stack holds the state of each JSON.stringify in progress on this
	// runtime (a toJSON or replacer may call JSON.stringify again).
	stack []*jsonCall
	// replacer is the one Go function goja calls; it works on the top of
	// stack.
	replacer goja.Value
}

// jsonCall is one JSON.stringify call's count.
type jsonCall struct {
	user    goja.Callable // the caller's replacer function, or nil
	started bool
	chars   float64 // lower bound of the text written so far
	sep     float64 // characters between two members: "," and, with a gap, a newline and an indent
	colon   float64 // after a key: ":" and, with a gap, a space
	// A property-list replacer: the keys, and for each copy made of an
	// object, the original and the copy it is a member of.
	list   []string
	copies map[*goja.Object]copyOf
	// holder of the last value and whether it is an array.
	holder      *goja.Object
	holderArray bool
}

type copyOf struct{ orig, parent *goja.Object }

// interrupted reports whether the runtime has been interrupted (deadline,
// heap guard): set with the interrupt and never cleared, since an
// interrupted runtime is discarded.
func (l *limits) interrupted() bool { return l.stop.Load() }

// checkStop throws once the call has been interrupted: a wrapped built-in
// called from inside another native loop (an array's toString while an
// outer join runs, a value while JSON.stringify runs) lets the interrupt
// through, which goja checks only between JS instructions.
func (l *limits) checkStop() {
	if l.interrupted() {
		l.stopThrown = true
		l.throwRange("stopped: the call was interrupted (deadline or memory budget)")
	}
}

// throwRange throws a RangeError with msg.
func (l *limits) throwRange(msg string) {
	e, err := l.rangeErr(nil, l.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	panic(e)
}

func (l *limits) wrapStringify(vm *goja.Runtime) error {
	jsonObj := vm.Get("JSON").ToObject(vm)
	orig, ok := goja.AssertFunction(jsonObj.Get("stringify"))
	if !ok {
		return nil
	}
	isArray, ok := goja.AssertFunction(vm.Get("Array").ToObject(vm).Get("isArray"))
	if !ok {
		return nil
	}
	jl := &jsonLimit{l: l}
	jl.replacer = vm.ToValue(jl.replace)
	origObj := jsonObj.Get("stringify").(*goja.Object)
	f := vm.ToValue(func(c goja.FunctionCall) goja.Value {
		value, rep, space := c.Argument(0), c.Argument(1), c.Argument(2)
		user, isFn := goja.AssertFunction(rep)
		var list []string
		if !isFn {
			user = nil
			if ro, ok := rep.(*goja.Object); ok {
				if a := callJS(isArray, goja.Undefined(), ro); a.ToBoolean() {
					list = propertyList(l, ro)
				}
			}
		}
		jl.push(user, list, gapLen(space))
		defer jl.pop()
		return callJS(orig, c.This, value, jl.replacer, space)
	}).(*goja.Object)
	for _, p := range []string{"name", "length"} {
		if err := f.DefineDataProperty(p, origObj.Get(p), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return err
		}
	}
	return jsonObj.DefineDataProperty("stringify", f, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}

func callJS(f goja.Callable, this goja.Value, args ...goja.Value) goja.Value {
	v, err := f(this, args...)
	if err != nil {
		panic(err)
	}
	return v
}

func (jl *jsonLimit) push(user goja.Callable, list []string, gap float64) {
	jc := &jsonCall{user: user, sep: 1, colon: 1, list: list}
	if gap > 0 {
		jc.sep, jc.colon = 2+gap, 2
	}
	jl.stack = append(jl.stack, jc)
}

func (jl *jsonLimit) pop() { jl.stack = jl.stack[:len(jl.stack)-1] }

// replace is the replacer goja calls with this = the holder, (key, value).
func (jl *jsonLimit) replace(c goja.FunctionCall) goja.Value {
	l := jl.l
	l.checkStop()
	jc := jl.stack[len(jl.stack)-1]
	key, v := c.Argument(0), c.Argument(1)
	if jc.user != nil {
		v = callJS(jc.user, c.This, key, v)
	}
	root := !jc.started
	jc.started = true
	holder, _ := c.This.(*goja.Object)
	if holder != jc.holder {
		// Members of one holder come one after another: one ClassName.
		jc.holder, jc.holderArray = holder, holder != nil && holder.ClassName() == "Array"
	}
	inArray := !root && jc.holderArray
	n, written := valueChars(v)
	switch {
	case inArray:
		if !written {
			n = 4 // null
		}
		n-- // one character each was paid for with the array
	case !written:
		return v // left out, key and all
	case !root:
		n += 2 + jc.colon + jc.sep
		if ks, ok := key.(goja.String); ok { // always, from goja
			n += float64(ks.Length())
		}
	}
	o, isObj := v.(*goja.Object)
	if isObj && written && o.ClassName() == "Array" {
		// The members' separators and a character each, before any is
		// written: a sparse array of 2^32−1 costs nothing to make.
		n += l.lengthOf(o) * (1 + jc.sep)
	}
	jc.chars += n
	if jc.chars > l.maxChars() {
		l.over("JSON.stringify: a text", jc.chars, "characters", l.maxChars())
	}
	if jc.list != nil && isObj && written && o.ClassName() != "Array" && !boxed(o) {
		return jl.copyListed(jc, holder, o)
	}
	return v
}

// copyListed returns a plain object with o's properties named in the
// property list, in its order (undefined ones are left out when written,
// as JSON.stringify leaves them out), or throws the TypeError of a cycle.
func (jl *jsonLimit) copyListed(jc *jsonCall, holder, o *goja.Object) goja.Value {
	vm := jl.l.vm
	for h := holder; h != nil; {
		cp, ok := jc.copies[h]
		if !ok {
			break
		}
		if cp.orig == o {
			panic(vm.NewTypeError("Converting circular structure to JSON"))
		}
		h = cp.parent
	}
	cp := vm.NewObject()
	for _, k := range jc.list {
		v := o.Get(k)
		if v == nil {
			continue // no such property: nothing is written
		}
		// Defined, not assigned: a key Object.prototype holds read-only
		// (after Object.freeze(Object.prototype)) threw "Cannot assign to
		// read only property", and a setter there ran
		// (TestStringifyListUnderFrozenPrototype).
		if err := cp.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			panic(err)
		}
	}
	if jc.copies == nil {
		jc.copies = map[*goja.Object]copyOf{}
	}
	var parent *goja.Object
	if _, ok := jc.copies[holder]; ok {
		parent = holder
	}
	jc.copies[cp] = copyOf{orig: o, parent: parent}
	return cp
}

// boxed reports whether o is a Number, String, Boolean or BigInt object
// (written as its primitive value).
func boxed(o *goja.Object) bool {
	switch o.ClassName() {
	case "Number", "String", "Boolean", "BigInt":
		return true
	}
	return false
}

// propertyList is JSON.stringify's property list from a replacer array:
// its strings, numbers and String/Number objects as strings, each once,
// in order.
func propertyList(l *limits, arr *goja.Object) []string {
	n := l.lengthOf(arr)
	l.checkElems("a property list", n)
	list := []string{}
	seen := map[string]bool{}
	for i := 0; i < int(n); i++ {
		v := arr.Get(strconv.Itoa(i))
		var item string
		switch x := v.(type) {
		case goja.String:
			item = x.String()
		case *goja.Object:
			if cn := x.ClassName(); cn != "String" && cn != "Number" {
				continue
			}
			item = x.String()
		default:
			if v == nil {
				continue
			}
			switch v.Export().(type) {
			case int64, float64:
				item = v.String()
			default:
				continue
			}
		}
		if !seen[item] {
			seen[item] = true
			list = append(list, item)
		}
	}
	return list
}

// valueChars is the least number of characters v is written as, and
// whether it is written at all (undefined, functions and symbols are not:
// an object member is left out, an array member becomes null).
func valueChars(v goja.Value) (float64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, false
	case goja.String:
		return float64(x.Length()) + 2, true
	case *goja.Symbol:
		return 0, false
	case *goja.Object:
		if _, ok := goja.AssertFunction(x); ok {
			return 0, false
		}
		switch x.ClassName() {
		case "String":
			return float64(x.ToString().(goja.String).Length()) + 2, true
		case "Number", "Boolean":
			return 1, true
		}
		return 2, true
	}
	if goja.IsUndefined(v) {
		return 0, false
	}
	if goja.IsNull(v) {
		return 4, true
	}
	switch v.ExportType() { // no allocation, unlike Export
	case typeBool:
		if v.ToBoolean() {
			return 4, true
		}
		return 5, true
	case typeInt64, typeFloat64:
		return digits(v.ToFloat()), true
	}
	return 1, true
}

var (
	typeBool    = reflect.TypeFor[bool]()
	typeInt64   = reflect.TypeFor[int64]()
	typeFloat64 = reflect.TypeFor[float64]()
)

// digits is a lower bound of the length of a number's JSON text.
func digits(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 4 // null
	}
	n := 1.0
	if f < 0 {
		n, f = 2, -f
	}
	if f >= 10 {
		n += math.Floor(math.Log10(math.Min(f, 1e21)))
	}
	return n
}

// gapLen is the length of the indent JSON.stringify's space argument
// gives (at most 10).
func gapLen(space goja.Value) float64 {
	if o, ok := space.(*goja.Object); ok {
		switch o.ClassName() {
		case "Number":
			space = o.ToNumber()
		case "String":
			space = o.ToString()
		default:
			return 0
		}
	}
	if s, ok := space.(goja.String); ok {
		return math.Min(float64(s.Length()), 10)
	}
	if space == nil || goja.IsUndefined(space) || goja.IsNull(space) {
		return 0
	}
	switch x := space.Export().(type) {
	case int64:
		return math.Max(0, math.Min(float64(x), 10))
	case float64:
		if math.IsNaN(x) {
			return 0
		}
		return math.Max(0, math.Min(math.Floor(x), 10))
	}
	return 0
}

package js

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
)

// Values crossing into JS (params, host-call results) are canonical generic
// values (abi.Normalize) turned into plain JS objects, arrays and primitives;
// object keys are set in sorted order so handlers see a deterministic order.
//
// Values coming out of JS (results, callTool params, error data) become
// canonical values by the rules of JSON.stringify, except that values JSON
// cannot carry are clear errors naming their path instead of silent loss:
// functions, a Symbol result, NaN/Infinity, Map, typed arrays, ArrayBuffer, DataView, Error, RegExp, iterators, Proxy,
// Promise (a missing await) and cycles. Properties whose value is undefined
// are skipped and undefined array elements become null, as in JSON. A Date
// becomes its ISO string (what its toJSON gives); other toJSON methods are
// not called. A Symbol nested in a result exports as its description (goja
// gives no cheap way to tell it from a string). A Set becomes the array of its values. Numbers that are
// integral and within ±(2^53-1) become int64, others float64. Integers beyond
// ±(2^53-1) cross into JS as BigInt (exact: uint64 values above 2^63 too)
// and BigInt results within the int64 range come back as int64, those
// within 2^63 … 2^64−1 as uint64; other BigInts are refused. The strings
// and keys of one value are bounded in total (TooLarge). A lone surrogate
// is an error in a string (it has no UTF-8 form; goja would give U+FFFD)
// and in a key (whose property would otherwise be lost: Keys gives it with
// U+FFFD, under which Get finds nothing).

const maxExportDepth = 512

var typePromise = reflect.TypeOf((*goja.Promise)(nil))

// maxSafe is Number.MAX_SAFE_INTEGER: int64 values beyond it reach JS as
// BigInt so they are not rounded, and BigInt results within int64 come back
// as int64 — an int64 round-trips through a handler exactly.
const maxSafe = 1<<53 - 1

// isoString is t as Date.prototype.toISOString writes it (ECMA-262
// 21.4.4.36, the date time string format): a year from 0 to 9999 in four
// digits, any other with its sign and six. Year 1 is a date (Go's zero
// time, which became null), 275760 "+275760", -1 "-000001".
func isoString(t time.Time) string {
	t = t.UTC()
	rest := t.Format("-01-02T15:04:05.000Z")
	switch y := t.Year(); {
	case y >= 0 && y <= 9999:
		return fmt.Sprintf("%04d", y) + rest
	case y < 0:
		return fmt.Sprintf("-%06d", -y) + rest
	default:
		return fmt.Sprintf("+%06d", y) + rest
	}
}

// exportError is a conversion failure with the JSON path of the value.
type exportError struct {
	code abi.ErrorCode
	msg  string
}

func (e *exportError) Error() string { return e.msg }

// step is one step of the path to a value: an object key, or an array
// index when idx >= 0.
type step struct {
	key string
	idx int
}

func pathString(path []step) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, st := range path {
		if st.idx >= 0 {
			b.WriteString("[" + strconv.Itoa(st.idx) + "]")
		} else {
			b.WriteString("." + st.key)
		}
	}
	return b.String()
}

// exporter converts a JS value into a canonical value. Plain objects and
// primitives are read directly (see value); for other objects it lets
// goja's own Export build the Go value, then walks the result once to check
// and canonicalize it. The two ambiguities of Export — undefined and null
// both export as nil, a Symbol exports as its "Symbol(desc)" string — are
// resolved by looking the value up in JS along its path, which happens only
// when such a value occurs.
type exporter struct {
	vm    *goja.Runtime
	root  goja.Value
	limit int // byte budget for strings and keys; <= 0 means no limit
	size  int
	stack []unsafe.Pointer // maps and slices on the current path (cycles)
	path  []step           // the current path, for lookups and errors
	// memo holds the objects converted so far (see value); deepest is
	// the deepest level reached below the object being converted.
	memo    map[*goja.Object]memoEntry
	deepest int
	// maxElems, when > 0, bounds the length of one array (a Go slot is
	// 16 bytes: the worker sets its budget / 16).
	maxElems int64
	// leaf is the object value hands to goja's Export and walk, at path
	// length leafAt: lookup gives it rather than reading the path again
	// from the root, which cannot be followed through a Set (an invalid
	// Date in one was taken for undefined and its key dropped, a typed
	// array there named "ArrayBuffer") and runs getters on it a second
	// time (TestLeafValueReadWhereFound).
	leaf   *goja.Object
	leafAt int
}

// limitText names the limit a value passed: the runtime's own bound on
// one value, which no configuration key raises ("larger than the limit of
// 67108864 bytes" named none, and a result under it may still pass
// limits.max_result_bytes).
func (e *exporter) limitText() string {
	return fmt.Sprintf("the JS runtime's bound of %d bytes on the strings and keys of one value (fixed; limits.max_result_bytes and max_params_bytes apply after it)", e.limit)
}

func (e *exporter) fail(code abi.ErrorCode, format string, args ...any) error {
	return &exportError{code: code, msg: pathString(e.path) + ": " + fmt.Sprintf(format, args...)}
}

// loneSurrogate refuses a string holding half of a UTF-16 surrogate pair,
// which has no UTF-8 form: goja exports it as U+FFFD, and the text would
// reach the caller changed without a word, where a Python tool's (a
// surrogateescape'd file name) and a WASM guest's invalid UTF-8 are
// InvalidResult naming the path. Called only for an exported string
// holding U+FFFD, so other strings are not read twice.
func (e *exporter) loneSurrogate(v goja.Value) error {
	if c, i, ok := loneSurrogateIn(v); ok {
		return e.fail(abi.InvalidResult, "the string holds a lone surrogate, \\u%04x at index %d (half of a UTF-16 surrogate pair, a string cut inside an emoji say), which has no UTF-8 form", c, i)
	}
	return nil
}

// loneSurrogateIn finds the first code unit of v, a string, that is half of
// a UTF-16 surrogate pair without its other half, and its index.
func loneSurrogateIn(v goja.Value) (c uint16, at int, found bool) {
	s, ok := v.(goja.String)
	if !ok {
		return 0, 0, false
	}
	n := s.Length()
	for i := 0; i < n; i++ {
		c := s.CharAt(i)
		switch {
		case c >= 0xD800 && c <= 0xDBFF && i+1 < n && s.CharAt(i+1) >= 0xDC00 && s.CharAt(i+1) <= 0xDFFF:
			i++ // a pair
		case c >= 0xD800 && c <= 0xDFFF:
			return c, i, true
		}
	}
	return 0, 0, false
}

func (e *exporter) add(n int) error {
	e.size += n
	if e.limit > 0 && e.size > e.limit {
		return e.fail(abi.TooLarge, "value is larger than %s", e.limitText())
	}
	return nil
}

// export converts v. skip reports that v is undefined (the caller drops the
// key, as JSON.stringify does). JS exceptions (throwing getters) panic as
// goja exceptions; callers run export inside vm.Try.
func (e *exporter) export(v goja.Value) (out any, skip bool, err error) {
	if v == nil || goja.IsUndefined(v) {
		return nil, true, nil
	}
	e.root, e.leaf = v, nil
	e.size = 0
	e.stack = e.stack[:0]
	e.path = e.path[:0]
	clear(e.memo)
	e.deepest = 0
	out, skip, err = e.value(v, 0)
	clear(e.memo) // no JS objects kept alive until the next export
	e.root, e.leaf = nil, nil
	return out, skip, err
}

// value converts the JS value at the current path. Primitives are
// exported by goja; objects that can hold other values are read here,
// never with goja's Export, which recurses through everything reachable
// and makes a slice of an array's whole length first (a sparse array of
// length 2^32-1 was a 64 GiB allocation, a fatal error of the process):
// plain objects (and Arguments: JSON.stringify's own
// enumerable properties) with Keys and Get, arrays index by index after
// their length is charged to the limit, a Set by its values. Each object
// is converted once (memo): another reference to it reuses the result and
// charges its size again, so shared children (a DAG of 2^40 paths) cost
// what they hold, not what they would print to. Cycles are found by the
// objects on the path. Leaves (Date, typed arrays, Map, Proxy, functions,
// Promise) are exported by goja and checked by walk.
func (e *exporter) value(v goja.Value, depth int) (any, bool, error) {
	if v == nil || goja.IsUndefined(v) {
		return nil, true, nil
	}
	if goja.IsNull(v) {
		return nil, false, nil
	}
	o, ok := v.(*goja.Object)
	if !ok {
		x := v.Export()
		if str, isStr := x.(string); isStr && strings.ContainsRune(str, utf8.RuneError) {
			if err := e.loneSurrogate(v); err != nil {
				return nil, false, err
			}
		}
		return e.walk(x, depth)
	}
	kind := 0 // 1: properties, 2: array, 3: Set
	switch cls, typ := o.ClassName(), o.ExportType(); {
	case cls == "Error":
		// A returned Error (catch (e) { return e; }) became {}: its name,
		// message and stack are not own enumerable properties, so the
		// failure was a success with nothing of why (TestErrorResultRefused).
		name := "Error"
		if n := o.Get("name"); n != nil && goja.IsString(n) && n.String() != "" {
			name = clip(n.String(), 200)
		}
		return nil, false, e.fail(abi.InvalidResult, "an Error (%s) is not a JSON value (it would be {}, its message lost); throw it to fail the call, or return the text you need: e.message", name)
	case cls == "RegExp":
		return nil, false, e.fail(abi.InvalidResult, "a RegExp is not a JSON value (it would be {}); return its pattern: r.source, or String(r)")
	case typ == typeMap && cls != "String":
		kind = 1
	case cls == "Array":
		kind = 2
	case cls == "String", cls == "Number", cls == "Boolean":
		return e.wrapper(o, depth)
	case typ == typeMapEntries:
		return nil, false, e.fail(abi.InvalidResult, "a Map is not a JSON value; convert it with Object.fromEntries(m)")
	case typ == typeSlice:
		kind = 3
	default:
		e.leaf, e.leafAt = o, len(e.path)
		out, skip, err := e.walk(o.Export(), depth)
		e.leaf = nil
		return out, skip, err
	}
	if depth >= maxExportDepth {
		return nil, false, e.fail(abi.InvalidResult, "value nested deeper than %d levels", maxExportDepth)
	}
	if m, ok := e.memo[o]; ok {
		if depth+m.height >= maxExportDepth {
			return nil, false, e.fail(abi.InvalidResult, "value nested deeper than %d levels", maxExportDepth)
		}
		e.deepest = max(e.deepest, depth+m.height)
		return m.out, false, e.add(m.size)
	}
	ptr := unsafe.Pointer(o)
	if slices.Contains(e.stack, ptr) {
		return nil, false, e.fail(abi.InvalidResult, "cycle: the value contains itself; JSON cannot carry cycles")
	}
	e.stack = append(e.stack, ptr)
	size0, deepest0 := e.size, e.deepest
	e.deepest = depth
	var out any
	var err error
	switch kind {
	case 1:
		out, err = e.object(o, depth)
	case 2:
		out, err = e.array(o, int64(o.Get("length").ToInteger()), func(i int64) goja.Value { return o.Get(strconv.FormatInt(i, 10)) }, depth)
	default:
		var items []goja.Value
		if items, err = e.setValues(o); err == nil {
			out, err = e.array(o, int64(len(items)), func(i int64) goja.Value { return items[i] }, depth)
		}
	}
	if err != nil {
		return nil, false, err
	}
	e.stack = e.stack[:len(e.stack)-1]
	if depth > 0 { // the root is met again only as a cycle
		if e.memo == nil {
			e.memo = make(map[*goja.Object]memoEntry)
		}
		e.memo[o] = memoEntry{out: out, size: e.size - size0, height: e.deepest - depth}
	}
	e.deepest = max(e.deepest, deepest0)
	return out, false, nil
}

// asyncIterator reports whether o, whose next is the function next, is
// async-iterable (Symbol.asyncIterator, which the prelude defines).
func (e *exporter) asyncIterator(o *goja.Object, next goja.Value) bool {
	if _, ok := goja.AssertFunction(next); !ok || e.vm == nil {
		return false
	}
	sym, ok := e.vm.Get("Symbol").(*goja.Object)
	if !ok {
		return false
	}
	ai, ok := sym.Get("asyncIterator").(*goja.Symbol)
	if !ok {
		return false
	}
	_, ok = goja.AssertFunction(o.GetSymbol(ai))
	return ok
}

// memoEntry is a converted object: its value, the size charged for it and
// how many levels it nests below itself.
type memoEntry struct {
	out    any
	size   int
	height int
}

// object converts an object's own enumerable string-keyed properties.
func (e *exporter) object(o *goja.Object, depth int) (any, error) {
	keys := o.Keys()
	if len(keys) == 0 {
		// A DataView is an object without own properties to goja (class
		// Object, exported as a map): it became {}, its bytes lost without
		// a word, where a typed array or ArrayBuffer is refused. Only an
		// object without keys is looked at, so others cost nothing more.
		if tag := o.GetSymbol(goja.SymToStringTag); tag != nil && goja.IsString(tag) && tag.String() == "DataView" {
			return nil, e.fail(abi.InvalidResult, "binary data (DataView) is not a JSON value; store it with ctx.spaces.write and return the ObjectId, or encode it as base64")
		}
		// An iterator (a generator function's handler, arr.values(),
		// map.keys()) became {} too, its values lost without a word.
		if _, ok := goja.AssertFunction(o.Get("next")); ok {
			if _, ok := goja.AssertFunction(o.GetSymbol(goja.SymIterator)); ok {
				return nil, e.fail(abi.InvalidResult, "an iterator (a generator's, or what values(), keys() or entries() return) is not a JSON value; make an array of it: [...it] or Array.from(it)")
			}
		}
	}
	m := make(map[string]any, len(keys))
	// replaced: the keys holding U+FFFD met so far (a set: a list
	// searched at each was quadratic, 20 000 such keys 1.9 s).
	var replaced map[string]struct{}
	for _, k := range keys {
		e.path = append(e.path, step{key: k, idx: -1})
		if err := e.add(len(k)); err != nil {
			return nil, err
		}
		v := o.Get(k)
		if strings.ContainsRune(k, utf8.RuneError) {
			// Keys gives a lone surrogate (half of a UTF-16 pair, which
			// has no UTF-8 form) as U+FFFD, under which Get finds no
			// property (or another one: a real U+FFFD key read twice).
			// The property would be lost without a word.
			if _, seen := replaced[k]; v == nil || seen {
				return nil, e.fail(abi.InvalidResult, "the key holds a lone surrogate (half of a UTF-16 surrogate pair), which has no UTF-8 form (shown here as U+FFFD); the property would be lost")
			}
			if replaced == nil {
				replaced = map[string]struct{}{}
			}
			replaced[k] = struct{}{}
		}
		r, skip, err := e.value(v, depth+1)
		if err != nil {
			if k == "next" && e.asyncIterator(o, v) {
				// An async generator's handler (lowered by esbuild to an
				// object with next, throw and return) said only "$.next:
				// a function is not a JSON value".
				e.path = e.path[:len(e.path)-1]
				return nil, e.fail(abi.InvalidResult, "an async iterator (an async generator's) is not a JSON value; collect it into an array (for await (const x of it) a.push(x)) and return that")
			}
			return nil, err
		}
		e.path = e.path[:len(e.path)-1]
		if !skip {
			m[k] = r
		}
	}
	return m, nil
}

// array converts n items (undefined becomes null, as in JSON); n is
// charged to the limit before anything is allocated.
func (e *exporter) array(o *goja.Object, n int64, get func(int64) goja.Value, depth int) (any, error) {
	if e.limit > 0 && n > int64(e.limit) {
		return nil, e.fail(abi.TooLarge, "an array of %d elements is larger than %s", n, e.limitText())
	}
	if e.maxElems > 0 && n > e.maxElems {
		return nil, e.fail(abi.TooLarge, "an array of %d elements would take more than the provider's memory budget to convert (%d elements at most)", n, e.maxElems)
	}
	if err := e.add(int(n)); err != nil {
		return nil, err
	}
	x := make([]any, n)
	for i := range n {
		e.path = append(e.path, step{idx: int(i)})
		r, _, err := e.value(get(i), depth+1)
		if err != nil {
			return nil, err
		}
		e.path = e.path[:len(e.path)-1]
		x[i] = r
	}
	return x, nil
}

// setValues lists a Set's values (its forEach; the provider's own code if
// it replaced it, which runs under the call's deadline like any other).
func (e *exporter) setValues(o *goja.Object) ([]goja.Value, error) {
	fe, ok := goja.AssertFunction(o.Get("forEach"))
	if !ok {
		return nil, e.fail(abi.InvalidResult, "a Set without forEach is not exported")
	}
	var items []goja.Value
	n := 0
	_, err := fe(o, e.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		if n++; e.limit <= 0 || n <= e.limit {
			items = append(items, c.Argument(0))
		}
		return goja.Undefined()
	}))
	if err == nil && n > len(items) {
		return nil, e.fail(abi.TooLarge, "a Set of %d values is larger than %s", n, e.limitText())
	}
	return items, err
}

// wrapper converts new String/Number/Boolean objects to their primitive
// value (valueOf), as JSON.stringify does.
func (e *exporter) wrapper(o *goja.Object, depth int) (any, bool, error) {
	if valueOf, ok := goja.AssertFunction(o.Get("valueOf")); ok {
		if pv, err := valueOf(o); err == nil && !goja.IsUndefined(pv) {
			if _, isObj := pv.(*goja.Object); !isObj {
				return e.walk(pv.Export(), depth+1)
			}
		}
	}
	return map[string]any{}, false, nil
}

const classObject = "Object"

var (
	typeMap        = reflect.TypeOf(map[string]any(nil))
	typeSlice      = reflect.TypeOf([]any(nil))    // a Set
	typeMapEntries = reflect.TypeOf([][2]any(nil)) // a Map
)

// lookup finds the JS value at the current path under the root.
func (e *exporter) lookup() goja.Value {
	if e.leaf != nil && e.leafAt == len(e.path) {
		return e.leaf
	}
	v := e.root
	for _, st := range e.path {
		o, ok := v.(*goja.Object)
		if !ok {
			return nil
		}
		if st.idx >= 0 {
			v = o.Get(strconv.Itoa(st.idx))
		} else {
			v = o.Get(st.key)
		}
	}
	return v
}

func (e *exporter) walk(v any, depth int) (any, bool, error) {
	switch x := v.(type) {
	case nil:
		jv := e.lookup()
		return nil, jv == nil || goja.IsUndefined(jv), nil
	case int64:
		// goja keeps an integral number as an int64 of its own: one past
		// ±(2^53-1) is no safe integer, and as an int64 it would reach a
		// JS caller as a BigInt (TestUnsafeIntegerNumberStaysNumber).
		if x > maxSafe || x < -maxSafe {
			return float64(x), false, nil
		}
		return x, false, nil
	case bool, uint64:
		return x, false, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false, e.fail(abi.InvalidResult, "%v is not a JSON number", x)
		}
		if x == math.Trunc(x) && math.Abs(x) <= maxSafe {
			return int64(x), false, nil
		}
		return x, false, nil
	case string:
		if len(e.path) == 0 {
			if _, isSym := e.root.(*goja.Symbol); isSym {
				return nil, false, e.fail(abi.InvalidResult, "a Symbol is not a JSON value")
			}
		}
		return v, false, e.add(len(x)) // v: no second boxing of x
	case map[string]any:
		if depth >= maxExportDepth {
			return nil, false, e.fail(abi.InvalidResult, "value nested deeper than %d levels", maxExportDepth)
		}
		if len(x) == 0 {
			// new String/Number/Boolean export as empty maps.
			if jo, ok := e.lookup().(*goja.Object); ok {
				switch jo.ClassName() {
				case "String", "Number", "Boolean":
					if valueOf, ok := goja.AssertFunction(jo.Get("valueOf")); ok {
						if pv, err := valueOf(jo); err == nil && !goja.IsUndefined(pv) {
							if _, isObj := pv.(*goja.Object); !isObj {
								return e.walk(pv.Export(), depth+1)
							}
						}
					}
				}
			}
			return x, false, nil
		}
		ptr := reflect.ValueOf(x).UnsafePointer()
		if slices.Contains(e.stack, ptr) {
			return nil, false, e.fail(abi.InvalidResult, "cycle: the value contains itself; JSON cannot carry cycles")
		}
		e.stack = append(e.stack, ptr)
		for k, ev := range x {
			e.path = append(e.path, step{key: k, idx: -1})
			if err := e.add(len(k)); err != nil {
				return nil, false, err
			}
			r, skip, err := e.walk(ev, depth+1)
			if err != nil {
				return nil, false, err
			}
			e.path = e.path[:len(e.path)-1]
			if skip {
				delete(x, k)
			} else {
				x[k] = r
			}
		}
		e.stack = e.stack[:len(e.stack)-1]
		return x, false, nil
	case []any:
		if depth >= maxExportDepth {
			return nil, false, e.fail(abi.InvalidResult, "value nested deeper than %d levels", maxExportDepth)
		}
		if len(x) > 0 {
			ptr := unsafe.Pointer(&x[0])
			if slices.Contains(e.stack, ptr) {
				return nil, false, e.fail(abi.InvalidResult, "cycle: the value contains itself; JSON cannot carry cycles")
			}
			e.stack = append(e.stack, ptr)
			defer func() { e.stack = e.stack[:len(e.stack)-1] }()
		}
		if err := e.add(len(x)); err != nil {
			return nil, false, err
		}
		for i, ev := range x {
			if ev == nil {
				continue // null, or undefined which JSON also makes null
			}
			e.path = append(e.path, step{idx: i})
			r, _, err := e.walk(ev, depth+1)
			if err != nil {
				return nil, false, err
			}
			e.path = e.path[:len(e.path)-1]
			x[i] = r
		}
		return x, false, nil
	case time.Time:
		// (An invalid Date exports as nil: null, as its toJSON gives.)
		s := isoString(x)
		return s, false, e.add(len(s))
	case *big.Int:
		if x.IsInt64() {
			return x.Int64(), false, nil
		}
		if x.IsUint64() {
			return x.Uint64(), false, nil
		}
		return nil, false, e.fail(abi.InvalidResult, "a BigInt (%s) outside the int64 and uint64 ranges is not a JSON value; convert it with String(x)", x)
	case func(goja.FunctionCall) goja.Value, func(goja.FunctionCall, *goja.Object) *goja.Object:
		return nil, false, e.fail(abi.InvalidResult, "a function is not a JSON value")
	case *goja.Promise:
		return nil, false, e.fail(abi.InvalidResult, "a Promise is not a JSON value (missing await?)")
	case [][2]any:
		return nil, false, e.fail(abi.InvalidResult, "a Map is not a JSON value; convert it with Object.fromEntries(m)")
	case goja.ArrayBuffer, []byte, []int8, []uint16, []int16, []uint32, []int32, []float32, []float64, []*big.Int, []uint64, []int64:
		name := "ArrayBuffer"
		if jo, ok := e.lookup().(*goja.Object); ok {
			if tag := jo.GetSymbol(goja.SymToStringTag); tag != nil && goja.IsString(tag) {
				name = tag.String()
			}
		}
		return nil, false, e.fail(abi.InvalidResult, "binary data (%s) is not a JSON value; store it with ctx.spaces.write and return the ObjectId, or encode it as base64", name)
	case goja.Proxy:
		return nil, false, e.fail(abi.InvalidResult, "a Proxy is not exported; return a plain object")
	}
	if reflect.TypeOf(v).Kind() == reflect.Func {
		return nil, false, e.fail(abi.InvalidResult, "a function is not a JSON value")
	}
	return nil, false, e.fail(abi.InvalidResult, "a JS value exported as %T is not a JSON value", v)
}

// setProp defines an own data property, as JSON.parse does. An assignment
// would let Object.prototype have its say: "__proto__" would set the
// object's prototype, a key Object.prototype holds read-only
// (Object.freeze(Object.prototype): constructor, toString) would be
// dropped without a word, and a setter there would get the value
// (TestParamsKeysUnderFrozenPrototype). The importer, on every
// call's path, gets the same without an allocation a key (importer.value).
func setProp(o *goja.Object, k string, v goja.Value) {
	_ = o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
}

// toJS converts a canonical value (or anything abi.Normalize accepts) into a
// plain JS value.
func toJS(vm *goja.Runtime, v any) goja.Value {
	im := importer{vm: vm}
	return im.value(v)
}

// importer converts canonical values into plain JS values, keeping its
// scratch slices (sorted properties, array items) across calls: a worker
// has one and uses it on its own goroutine only.
type importer struct {
	vm    *goja.Runtime
	proto *goja.Object // the realm's Object.prototype (objectProto)
	props []prop       // a stack: each object sorts its properties at the top
	items []any        // a stack: each array collects its items at the top
}

// objectProto is the realm's own Object.prototype (the one an object
// literal gets), whatever the global Object has become.
func (im *importer) objectProto() *goja.Object {
	if im.proto == nil {
		im.proto = im.vm.NewObject().Prototype()
	}
	return im.proto
}

type prop struct {
	k string
	v any
}

func (im *importer) value(v any) goja.Value {
	vm := im.vm
	switch x := v.(type) {
	case nil:
		return goja.Null()
	case string, bool, float64:
		return vm.ToValue(v) // v, not x: no second boxing
	case int64:
		if x > maxSafe || x < -maxSafe {
			return vm.ToValue(new(big.Int).SetInt64(x))
		}
		return vm.ToValue(v)
	case uint64: // canonical only above 2^63
		return vm.ToValue(new(big.Int).SetUint64(x))
	case []any:
		base := len(im.items)
		for _, e := range x {
			jv := im.value(e) // may use (and restore) the stack above base
			im.items = append(im.items, jv)
		}
		a := vm.NewArray(im.items[base:]...) // copies the items
		clear(im.items[base:])
		im.items = im.items[:base]
		return a
	case map[string]any:
		if len(x) == 0 {
			return vm.NewObject()
		}
		// Made without a prototype, so that each assignment below makes
		// an own data property whatever Object.prototype holds (see
		// setProp: DefineDataProperty does the same at an allocation a
		// key), and given Object.prototype once they are set.
		o := vm.CreateObject(nil)
		// One pass over the map (no lookups afterwards), keys sorted.
		base := len(im.props)
		for k, e := range x {
			im.props = append(im.props, prop{k, e})
		}
		ps := im.props[base:]
		if len(ps) == 2 {
			if ps[1].k < ps[0].k {
				ps[0], ps[1] = ps[1], ps[0]
			}
		} else if len(ps) > 2 {
			slices.SortFunc(ps, func(a, b prop) int { return strings.Compare(a.k, b.k) })
		}
		for i := base; i < base+len(x); i++ {
			// im.props may grow (nested objects) but keeps its prefix.
			p := im.props[i]
			_ = o.Set(p.k, im.value(p.v))
		}
		clear(im.props[base:])
		im.props = im.props[:base]
		_ = o.SetPrototype(im.objectProto())
		return o
	}
	n, err := abi.Normalize(v)
	if err != nil {
		return goja.Null()
	}
	return im.value(n)
}

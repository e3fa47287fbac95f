package js

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/dop251/goja"
)

// Size limits on the built-ins that allocate in one native step.
//
// The memory guard (guard.go) samples the heap and interrupts the JS code,
// but goja checks interrupts only between JS instructions. A built-in
// asked for a huge result — 'x'.repeat(2 ** 36), new ArrayBuffer(2 ** 38),
// new Array(2 ** 31).fill(0) — allocates it inside one native call, and an
// allocation larger than the machine's memory is a fatal error that ends
// the whole host process, not a panic anything can recover. The wrappers
// here compute the size a call would allocate from its arguments (and from
// the array's length) and throw a RangeError before it starts when that
// size is over the provider's memory budget. Every check is here, in Go,
// where it costs ≈ 0.3 µs a call against ≈ 7 µs for a JS wrapper that
// forwards `arguments`; only the replacement of the constructors (Array,
// ArrayBuffer, the typed arrays) is JS (limits.js), because it needs
// new.target for subclassing. What the limits cannot see is listed in docs/js.md
// ("Sandbox").
type limits struct {
	vm        *goja.Runtime
	maxBytes  float64
	rangeErr  goja.Constructor
	syntaxErr goja.Constructor
	stop      atomic.Bool // set when the runtime is interrupted (jsonlimit.go)
	// stopThrown: a native loop threw because of stop, so the call's
	// error is the interrupt's (worker.invoke).
	stopThrown bool
}

// Sizes: a string's characters count 2 bytes (UTF-16 at worst), an array
// slot 16 (an interface value).
const (
	charBytes = 2
	slotBytes = 16
)

func (l *limits) maxChars() float64 { return l.maxBytes / charBytes }
func (l *limits) maxElems() float64 { return l.maxBytes / slotBytes }

// over throws the RangeError of a refused call (it panics with the JS
// error object, which goja turns into a throw in the calling code).
func (l *limits) over(what string, n float64, unit string, max float64) {
	msg := fmt.Sprintf("%s of %.0f %s is over the limit of %.0f %s set by the provider's memory budget (%.0f MiB)",
		what, n, unit, math.Floor(max), unit, math.Round(l.maxBytes/(1<<20)))
	e, err := l.rangeErr(nil, l.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	panic(e)
}

// count is ToLength for a size argument: NaN, negative and non-numbers
// count 0. A BigInt or a Symbol throws the same TypeError the built-in
// would.
func count(v goja.Value) float64 {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	f := v.ToFloat()
	if !(f > 0) {
		return 0
	}
	return math.Floor(f)
}

// argOnce returns argument i of c converted by conv (the conversion the
// built-in applies to it: toNumber, toString) when it is an object, and
// puts the converted value in c's arguments (a copy), so the built-in
// that wrap calls next gets the value the check saw. An object's valueOf
// or toString then runs once, as for the built-in alone; it ran once for
// the check and again in the built-in, and an argument that answered
// small to the check and large to the built-in passed the check
// (TestSizeChecksConvertOnce).
func (l *limits) argOnce(c *goja.FunctionCall, i int, conv func(goja.Value) goja.Value) goja.Value {
	v := c.Argument(i)
	if _, ok := v.(*goja.Object); !ok {
		return v
	}
	v = conv(v)
	args := make([]goja.Value, len(c.Arguments))
	copy(args, c.Arguments)
	args[i] = v
	c.Arguments = args
	return v
}

func toNumber(v goja.Value) goja.Value { return v.ToNumber() }

var typeArrayBuffer = reflect.TypeOf(goja.ArrayBuffer{})

func toString(v goja.Value) goja.Value { return v.ToString() }

// lengthOf is the length a generic method sees on its receiver.
func (l *limits) lengthOf(v goja.Value) float64 {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0 // the built-in throws
	}
	if s, ok := v.(goja.String); ok {
		return float64(s.Length())
	}
	return count(v.ToObject(l.vm).Get("length"))
}

func (l *limits) checkElems(what string, n float64) {
	if n > l.maxElems() {
		l.over(what, n, "elements", l.maxElems())
	}
}

func (l *limits) checkChars(n float64) {
	if n > l.maxChars() {
		l.over("a string", n, "characters", l.maxChars())
	}
}

// wrap replaces obj[name] with a Go function that runs check and then the
// original. The replacement keeps the original's name, length and property
// attributes; like a built-in method it is not a constructor.
func (l *limits) wrap(obj *goja.Object, name string, check func(c *goja.FunctionCall)) (goja.Value, error) {
	f, err := l.wrapped(obj.Get(name), check)
	if f == nil || err != nil {
		return nil, err
	}
	return f, obj.DefineDataProperty(name, f, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}

// wrapSym is wrap for a method keyed by a symbol (String.prototype's
// Symbol.iterator).
func (l *limits) wrapSym(obj *goja.Object, sym *goja.Symbol, check func(c *goja.FunctionCall)) error {
	f, err := l.wrapped(obj.GetSymbol(sym), check)
	if f == nil || err != nil {
		return err
	}
	return obj.DefineDataPropertySymbol(sym, f, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}

// wrapped is the replacement of the built-in fn (nil when fn is none).
func (l *limits) wrapped(fn goja.Value, check func(c *goja.FunctionCall)) (*goja.Object, error) {
	orig, ok := goja.AssertFunction(fn)
	if !ok {
		return nil, nil // not in this goja version
	}
	origObj := fn.(*goja.Object)
	f := l.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		l.checkStop()
		check(&c) // may replace an argument by its conversion (argOnce)
		v, err := orig(c.This, c.Arguments...)
		if err != nil {
			panic(err)
		}
		return v
	}).(*goja.Object)
	if err := f.DefineDataProperty("name", origObj.Get("name"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
		return nil, err
	}
	if err := f.DefineDataProperty("length", origObj.Get("length"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
		return nil, err
	}
	return f, nil
}

// installLimits puts the size checks on the worker's runtime (before the
// SDK prelude and any provider code) at the worker's budget.
func (w *worker) installLimits() error {
	vm := w.vm
	l := &limits{vm: vm}
	var ok bool
	if l.rangeErr, ok = goja.AssertConstructor(vm.Get("RangeError")); !ok {
		return fmt.Errorf("JS limits: no RangeError")
	}
	if l.syntaxErr, ok = goja.AssertConstructor(vm.Get("SyntaxError")); !ok {
		return fmt.Errorf("JS limits: no SyntaxError")
	}
	arrayCtor := vm.Get("Array").ToObject(vm) // before limits.js replaces the global
	if err := l.wrapAll(arrayCtor); err != nil {
		return fmt.Errorf("JS limits: %w", err)
	}
	if err := l.wrapStringify(vm); err != nil {
		return fmt.Errorf("JS limits: %w", err)
	}
	lv, err := vm.RunProgram(w.p.rt.limits)
	if err != nil {
		return fmt.Errorf("JS limits: %w", err)
	}
	lf, ok := goja.AssertFunction(lv)
	if !ok {
		return fmt.Errorf("JS limits: not a function")
	}
	names := []any{"Array", "RegExp"}
	for n := range elemBytes {
		names = append(names, n)
	}
	if _, err := lf(goja.Undefined(), vm.ToValue(l.checkCtor), vm.NewArray(names...), vm.ToValue(l.checkSource)); err != nil {
		return fmt.Errorf("JS limits: %w", err)
	}
	w.limits = l
	w.applyBudget(w.budget)
	return nil
}

// applyBudget sets the worker's budget, which is also the built-ins' size
// limit.
func (w *worker) applyBudget(b uint64) {
	w.mu.Lock() // the watchdog reads it (register runs under the load deadline)
	w.budget = b
	w.mu.Unlock()
	w.limits.maxBytes = float64(b)
}

// maxRunTimeSource bounds the source that eval and the Function
// constructors compile at run time. goja's parser and compiler recurse once
// per nesting level, and its stack use per character of source peaks at
// about 2.1 KB (measured: '[' or '(' repeated; '{' 0.36 KB, '!' 0.3 KB),
// so 256 Ki characters need at most ~540 MB of the 1 GB stack limit, the
// overflow of which would end the host (provider files themselves are
// parsed in the bundler process: bundler.go).
const maxRunTimeSource = 256 << 10

// checkSource is limits.js's checkSource(name, args): it throws a
// RangeError when the strings in args (what eval or a Function constructor
// is about to compile) are longer together than maxRunTimeSource, and
// returns them in a new array, which is what the original compiles: the
// source compiled is the source counted. limits.js converts the arguments
// to strings in a plain loop; it used args.map(...), a method the provider
// can replace: replaced, the arguments reached the original constructor
// unconverted, and the check, which counted strings only, let any source
// through as an object whose toString returns it
// (TestPatchedBuiltinsKeepSourceLimit). A value that is not a string
// is a TypeError now, not a value left uncounted.
func (l *limits) checkSource(c goja.FunctionCall) goja.Value {
	name := c.Argument(0).String()
	args := c.Argument(1).ToObject(l.vm)
	k := int(l.lengthOf(args))
	strs := make([]any, k)
	n := 0
	for i := range k {
		s, ok := args.Get(strconv.Itoa(i)).(goja.String)
		if !ok {
			panic(l.vm.NewTypeError(fmt.Sprintf("the sandbox's source check: argument %d is not a string", i+1)))
		}
		n += s.Length()
		strs[i] = s
	}
	if n <= maxRunTimeSource {
		return l.vm.NewArray(strs...)
	}
	what := "new Function"
	if name == "eval" {
		what = "eval"
	}
	e, err := l.rangeErr(nil, l.vm.ToValue(fmt.Sprintf("%s of %d characters of source: the sandbox compiles at most %d at run time", what, n, maxRunTimeSource)))
	if err != nil {
		panic(err)
	}
	panic(e)
}

// elemBytes are the buffer constructors limits.js replaces (besides
// Array) and the size of their elements.
var elemBytes = map[string]float64{"ArrayBuffer": 1, "SharedArrayBuffer": 1, "Int8Array": 1, "Uint8Array": 1,
	"Uint8ClampedArray": 1, "Int16Array": 2, "Uint16Array": 2, "Int32Array": 4, "Uint32Array": 4, "Float32Array": 4,
	"Float64Array": 8, "BigInt64Array": 8, "BigUint64Array": 8}

// checkCtor is limits.js's check(name, args): new Array(n) is n slots; a
// buffer or typed array of a number n is n elements, of an array-like its
// length (copied element by element).
func (l *limits) checkCtor(c goja.FunctionCall) goja.Value {
	name := c.Argument(0).String()
	args := c.Argument(1).ToObject(l.vm)
	a0 := args.Get("0")
	if name == "Array" {
		if l.lengthOf(args) == 1 && goja.IsNumber(a0) {
			l.checkElems("an array", a0.ToFloat())
		}
		return goja.Undefined()
	}
	if name == "RegExp" {
		l.checkRegExp(a0, args.Get("1"))
		return goja.Undefined()
	}
	// An object argument is converted (or measured) once, here, and the
	// constructor gets what was checked (see argOnce): ArrayBuffer's size
	// is the object's number (its valueOf; it was sized by its length
	// property, which that constructor does not read); a typed array made
	// from an array-like (no iterator) gets a view of it whose length is
	// the length checked, so a length getter answers once.
	var n float64
	o, isObj := a0.(*goja.Object)
	switch {
	case !isObj:
		n = count(a0)
	case name == "ArrayBuffer" || name == "SharedArrayBuffer":
		num := a0.ToNumber()
		n = count(num)
		_ = args.Set("0", num)
	default:
		n = l.lengthOf(o) // an ArrayBuffer (a view: nothing copied) has no length
		if it := o.GetSymbol(goja.SymIterator); o.ExportType() != typeArrayBuffer && (it == nil || goja.IsUndefined(it) || goja.IsNull(it)) {
			_ = args.Set("0", l.lengthView(o, n))
		}
	}
	if b := n * elemBytes[name]; b > l.maxBytes {
		l.over("a buffer", b, "bytes", l.maxBytes)
	}
	return goja.Undefined()
}

// checkRegExp refuses a Unicode property escape (\p{L}, \P{Script=Greek})
// in a regular expression with the u or v flag, which goja does not
// implement: it matched the text "p{L}", so /\p{L}+/u.test('é') was false
// without a word. esbuild turns every such literal into new RegExp(…) (the
// escapes are ES2018, the bundle's target ES2017), so the constructor sees
// them all. A pattern or flags given as an object other than a RegExp is
// not converted here (the constructor converts it; converting it twice
// would call its toString twice).
func (l *limits) checkRegExp(pattern, flags goja.Value) {
	var src string
	if goja.IsString(pattern) {
		src = pattern.String()
	} else if o, ok := pattern.(*goja.Object); ok && o.ClassName() == "RegExp" {
		src = o.Get("source").String()
		if flags == nil || goja.IsUndefined(flags) {
			flags = o.Get("flags")
		}
	} else {
		return
	}
	if flags == nil || !goja.IsString(flags) || !strings.ContainsAny(flags.String(), "uv") {
		return
	}
	for i := 0; i+2 < len(src); i++ {
		if src[i] != '\\' {
			continue
		}
		if (src[i+1] == 'p' || src[i+1] == 'P') && src[i+2] == '{' {
			end := strings.IndexByte(src[i:], '}')
			esc := src[i:]
			if end >= 0 {
				esc = src[i : i+end+1]
			}
			msg := fmt.Sprintf("Invalid regular expression: /%s/%s: the Unicode property escape %s is not supported by goja, the engine JS tools run on (it would match the text %q); use a character class of the ranges you mean, such as [A-Za-z\\u00C0-\\u024F] (docs/js.md)",
				cutText(src), flags.String(), esc, esc[1:])
			e, err := l.syntaxErr(nil, l.vm.ToValue(msg))
			if err != nil {
				panic(err)
			}
			panic(e)
		}
		i++ // the escaped character
	}
}

func (l *limits) wrapAll(arrayCtor *goja.Object) error {
	vm := l.vm
	sp := vm.Get("String").ToObject(vm).Get("prototype").ToObject(vm)
	ap := arrayCtor.Get("prototype").ToObject(vm)
	type wrapping struct {
		obj   *goja.Object
		name  string
		check func(*goja.FunctionCall)
	}
	thisLength := func(c *goja.FunctionCall) { l.checkElems("an array", l.lengthOf(c.This)) }
	// thisView is thisLength for the methods that build their result
	// from the receiver and neither write to it nor hand it to a
	// callback: a receiver that is not an array is replaced by a view
	// whose length is the one checked (lengthView). The built-in read the
	// length again, and a getter answering 1 to the check and millions to
	// the built-in passed (TestReceiverLengthReadOnce).
	thisView := func(c *goja.FunctionCall) {
		n := l.lengthOf(c.This)
		l.checkElems("an array", n)
		if o, ok := c.This.(*goja.Object); ok && o.ClassName() != "Array" {
			c.This = l.lengthView(o, n)
		}
	}
	list := []wrapping{
		// Strings.
		{sp, "repeat", func(c *goja.FunctionCall) {
			if n := count(l.argOnce(c, 0, toNumber)); n > 0 {
				l.checkChars(l.lengthOf(c.This) * n)
			}
		}},
		{sp, "padStart", func(c *goja.FunctionCall) { l.checkChars(count(l.argOnce(c, 0, toNumber))) }},
		{sp, "padEnd", func(c *goja.FunctionCall) { l.checkChars(count(l.argOnce(c, 0, toNumber))) }},
		// split with a string separator: as many strings as separators,
		// counted exactly only when the string is long enough to matter
		// (a RegExp separator is not sized).
		{sp, "split", func(c *goja.FunctionCall) {
			sep, ok := c.Argument(0).(goja.String)
			if !ok {
				return
			}
			n := l.lengthOf(c.This)
			lim := math.Inf(1)
			if a1 := l.argOnce(c, 1, toNumber); !goja.IsUndefined(a1) {
				lim = float64(uint32(a1.ToInteger()))
			}
			parts := n + 1
			if sep.Length() > 0 {
				parts = n/float64(sep.Length()) + 1
			}
			if math.Min(parts, lim) <= l.maxElems() {
				return
			}
			if sep.Length() > 0 {
				parts = float64(strings.Count(c.This.String(), sep.String()) + 1)
			}
			l.checkElems("an array", math.Min(parts, lim))
		}},
		// Array methods that build a result or an iterator sized by the
		// receiver's length, in a native loop the interrupt does not reach.
		{ap, "copyWithin", thisLength}, {ap, "entries", thisLength}, {ap, "fill", thisLength},
		{ap, "flat", thisView}, {ap, "flatMap", thisLength}, {ap, "keys", thisLength},
		{ap, "map", thisLength}, {ap, "reverse", thisLength}, {ap, "slice", thisView},
		{ap, "sort", thisLength}, {ap, "splice", thisLength}, {ap, "toLocaleString", thisView},
		{ap, "toReversed", thisView}, {ap, "toSorted", thisView}, {ap, "toSpliced", thisView},
		{ap, "with", thisView},
		{ap, "join", func(c *goja.FunctionCall) {
			sep := l.argOnce(c, 0, toString)
			n := l.checkJoin(c.This, sep)
			if o, ok := c.This.(*goja.Object); ok && o.ClassName() != "Array" {
				c.This = l.lengthView(o, n) // as thisView
			}
		}},
		{ap, "toString", func(c *goja.FunctionCall) {
			if o, ok := c.This.(*goja.Object); ok && o.ClassName() == "Array" {
				l.checkJoin(c.This, nil)
			}
		}},
		{ap, "concat", func(c *goja.FunctionCall) {
			n := l.lengthOf(c.This)
			for _, a := range c.Arguments {
				if o, ok := a.(*goja.Object); ok && o.ClassName() == "Array" {
					n += l.lengthOf(a)
				} else {
					n++
				}
			}
			l.checkElems("an array", n)
		}},
		// Argument lists: f.apply(x, {length: 2 ** 32}) builds one in one step.
		{vm.Get("Function").ToObject(vm).Get("prototype").ToObject(vm), "apply", func(c *goja.FunctionCall) { l.checkArgs(c, 1) }},
		{vm.Get("Reflect").ToObject(vm), "apply", func(c *goja.FunctionCall) { l.checkArgs(c, 2) }},
		{vm.Get("Reflect").ToObject(vm), "construct", func(c *goja.FunctionCall) { l.checkArgs(c, 1) }},
		// JSON.parse descends one Go call per level of nesting, and a
		// stack overflow ends the process: three million '[' ended the
		// host (TestJSONParseDeepNestingRefused).
		{vm.Get("JSON").ToObject(vm), "parse", func(c *goja.FunctionCall) {
			l.checkJSONDepth(l.argOnce(c, 0, toString))
		}},
		// Array.from(arrayLike): sized by its length when it is not
		// iterable (array iterators are checked above; a generator is JS).
		{arrayCtor, "from", func(c *goja.FunctionCall) {
			src, ok := c.Argument(0).(*goja.Object)
			if ok && goja.IsUndefined(src.GetSymbol(goja.SymIterator)) {
				l.checkElems("an array", l.lengthOf(src))
			}
		}},
	}
	for _, wr := range list {
		if _, err := l.wrap(wr.obj, wr.name, wr.check); err != nil {
			return err
		}
	}
	// values is also Array.prototype[Symbol.iterator] (the same function):
	// spread, for…of and Array.from use it.
	values, err := l.wrap(ap, "values", thisLength)
	if err != nil {
		return err
	}
	if values != nil {
		if err := ap.DefineDataPropertySymbol(goja.SymIterator, values, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return err
		}
	}
	// A string's iterator, which spread and Array.from(s) drain into an
	// array of one element per character in one native loop: sized by the
	// string's length as an array's by its own (a 20 million character
	// string, which the budget allows, became gigabytes of array before
	// the heap guard could stop it: TestStringSpreadSized).
	if err := l.wrapSym(sp, goja.SymIterator, thisLength); err != nil {
		return err
	}
	if err := l.wrapJoinConcat(sp); err != nil { // joinlimit.go
		return err
	}
	return l.wrapReplace(sp) // replacelimit.go
}

// maxJSONDepth is the deepest nesting of arrays and objects JSON.parse
// is given: goja's parser recurses per level (about 330 bytes of Go stack
// each), and a value nested deeper than 512 levels cannot cross to the
// host anyway.
const maxJSONDepth = 10000

// checkJSONDepth throws a RangeError when JSON text v nests arrays and
// objects deeper than maxJSONDepth (brackets in strings do not count).
func (l *limits) checkJSONDepth(v goja.Value) {
	s, ok := v.(goja.String)
	if !ok || s.Length() <= maxJSONDepth {
		return
	}
	text := s.String()
	depth, inStr := 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			if depth++; depth > maxJSONDepth {
				e, err := l.rangeErr(nil, l.vm.ToValue(fmt.Sprintf("JSON.parse: the text nests arrays and objects more than %d levels deep (at byte %d), deeper than the sandbox parses", maxJSONDepth, i)))
				if err != nil {
					panic(err)
				}
				panic(e)
			}
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
	}
}

func (l *limits) checkJoin(this, sep goja.Value) (n float64) {
	n = l.lengthOf(this)
	l.checkElems("an array", n)
	s := 1.0
	if sep != nil && !goja.IsUndefined(sep) {
		str, ok := sep.ToString().(goja.String)
		if !ok {
			return n // a Symbol: the built-in throws its TypeError
		}
		s = float64(str.Length())
	}
	if n > 1 {
		l.checkChars((n - 1) * s)
	}
	return n
}

// checkArgs sizes the argument list argument i of c, an array-like, by
// its length. One that is not an array is handed to the built-in as a
// view whose length is the one checked (lengthView): the built-in read
// the length again, and a getter answering 1 to the check and 2^31 to the
// built-in passed (TestArgumentListLengthReadOnce).
func (l *limits) checkArgs(c *goja.FunctionCall, i int) {
	o, ok := c.Argument(i).(*goja.Object)
	if !ok {
		return
	}
	n := l.lengthOf(o)
	l.checkElems("an argument list", n)
	if o.ClassName() != "Array" { // an array's length is its own data property
		args := make([]goja.Value, len(c.Arguments))
		copy(args, c.Arguments)
		args[i] = l.lengthView(o, n)
		c.Arguments = args
	}
}

// lengthView is an object whose prototype is o and whose length is n, its
// own data property: what a built-in reads of it is o's elements and the
// length a check read once.
func (l *limits) lengthView(o *goja.Object, n float64) *goja.Object {
	view := l.vm.NewObject()
	if err := view.SetPrototype(o); err != nil {
		panic(err)
	}
	_ = view.DefineDataProperty("length", l.vm.ToValue(n), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	return view
}

package js

import (
	"math"
	"strconv"

	"github.com/dop251/goja"
)

// Size checks of a typed array's join (%TypedArray%.prototype.join, which
// is not Array.prototype's and which toString calls) and of
// String.prototype.concat: both build their result in one native loop,
// and new Uint8Array(1e5).join(a 1000-character separator) asked for 100
// million characters, ''.concat(...Array(n).fill(s)) for n times s,
// however small the budget (TestTypedJoinAndConcatSized).

// typedWidth is the most characters an element of a typed array of
// element type et is written with (a Float32Array's as a double).
func typedWidth(et any) float64 {
	switch et.(type) {
	case []uint8:
		return 3
	case []int8:
		return 4
	case []uint16:
		return 5
	case []int16:
		return 6
	case []uint32:
		return 10
	case []int32:
		return 11
	case []int64, []uint64:
		return 20
	}
	return 24 // -1.7976931348623157e+308
}

// typedChars is the exact number of characters join writes for the
// elements of the typed array exported as elems (nil: unknown).
func (l *limits) typedChars(elems any) (n float64, ok bool) {
	switch e := elems.(type) {
	case []uint8:
		n = intChars(e)
	case []int8:
		n = intChars(e)
	case []uint16:
		n = intChars(e)
	case []int16:
		n = intChars(e)
	case []uint32:
		n = intChars(e)
	case []int32:
		n = intChars(e)
	case []int64:
		n = intChars(e)
	case []uint64:
		for _, v := range e {
			n += float64(len(strconv.FormatUint(v, 10)))
		}
	case []float32:
		for _, v := range e {
			n += float64(len(l.vm.ToValue(float64(v)).String()))
		}
	case []float64:
		for _, v := range e {
			n += float64(len(l.vm.ToValue(v).String()))
		}
	default:
		return 0, false
	}
	return n, true
}

// intChars is the number of characters of e's integers in decimal.
func intChars[T ~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64](e []T) (n float64) {
	for _, v := range e {
		n += float64(len(strconv.FormatInt(int64(v), 10)))
	}
	return n
}

// checkTypedJoin sizes a typed array's join: its elements at their widest
// and its separators; past the budget, its elements exactly.
func (l *limits) checkTypedJoin(c *goja.FunctionCall) {
	o, ok := c.This.(*goja.Object)
	if !ok {
		return // the built-in throws
	}
	elems := o.Export()
	n := l.lengthOf(o)
	sep := 1.0
	if s := l.argOnce(c, 0, toString); !goja.IsUndefined(s) {
		if _, ok := s.(*goja.Symbol); ok {
			return // the built-in throws
		}
		sep = strLength(s)
	}
	seps := math.Max(n-1, 0) * sep
	if n*typedWidth(elems)+seps <= l.maxChars() {
		return
	}
	l.checkChars(seps)
	if exact, ok := l.typedChars(elems); ok {
		l.checkChars(exact + seps)
	}
}

// checkConcat sizes String.prototype.concat: its receiver and arguments,
// each converted to a string once (an object's toString ran once for the
// check and again in the built-in).
func (l *limits) checkConcat(c *goja.FunctionCall) {
	if _, ok := c.This.(*goja.Object); ok || c.This == nil || goja.IsUndefined(c.This) || goja.IsNull(c.This) {
		return // converted by the built-in (or it throws): not sized
	}
	n := strLength(c.This)
	for i, a := range c.Arguments {
		if _, ok := a.(goja.String); !ok {
			a = l.argOnce(c, i, toString)
		}
		if _, ok := a.(*goja.Object); ok { // a Symbol's: the built-in throws
			continue
		}
		if _, ok := a.(*goja.Symbol); ok {
			continue
		}
		n += strLength(a)
	}
	l.checkChars(n)
}

// wrapJoinConcat puts both checks in place.
func (l *limits) wrapJoinConcat(sp *goja.Object) error {
	vm := l.vm
	if _, err := l.wrap(sp, "concat", l.checkConcat); err != nil {
		return err
	}
	u8, ok := vm.Get("Uint8Array").(*goja.Object)
	if !ok {
		return nil
	}
	proto, ok := u8.Get("prototype").(*goja.Object)
	if !ok || proto.Prototype() == nil {
		return nil
	}
	_, err := l.wrap(proto.Prototype(), "join", l.checkTypedJoin)
	return err
}

package js

import (
	"math"
	"strings"
	"unicode/utf16"

	"github.com/dop251/goja"
)

// Size checks of String.prototype.replace, replaceAll and
// RegExp.prototype[Symbol.replace] (which the two call for a RegExp).
// They build their result in one native loop, and a replacement pattern
// multiplies its input: "$'" (the text after each match) made a string of
// 20 000 characters into one of 200 million, and one of 100 000 into 5
// billion, an allocation that ends the host process
// (TestReplaceResultSized). A quick bound — every match (at most one for
// replace with a string, one a character otherwise) replaced by the whole
// pattern with each "$" standing for the whole string — lets the ordinary
// call through at once; past the budget the replacement is run once
// without building anything, with a function of ours that adds up what
// each match's pattern would write, and the call is refused when that
// total is over the budget. A function replacement is JS, which the
// heap guard and the deadline interrupt, and is not sized.

// replTemplate is a replacement pattern (GetSubstitution's), reduced to
// what its size depends on.
type replTemplate struct {
	length  float64 // its characters
	dollars float64 // its "$" characters
	lit     float64 // characters written as they are
	match   float64 // "$&"
	before  float64 // "$`"
	after   float64 // "$'"
	digits  map[[2]int]float64
	groups  map[string]float64
	glit    float64 // characters of the "$<name>" tokens, literal when there are no groups
}

func parseTemplate(s goja.Value) *replTemplate {
	t := &replTemplate{length: strLength(s)}
	rs := []rune(s.String())
	width := func(r rune) float64 { return float64(max(utf16.RuneLen(r), 1)) } // an invalid rune is one unit
	for i := 0; i < len(rs); i++ {
		if rs[i] != '$' || i+1 == len(rs) {
			t.lit += width(rs[i])
			continue
		}
		t.dollars++
		switch c := rs[i+1]; {
		case c == '$':
			t.lit++
			i++
		case c == '&':
			t.match++
			i++
		case c == '`':
			t.before++
			i++
		case c == '\'':
			t.after++
			i++
		case c >= '0' && c <= '9':
			k := [2]int{int(c - '0'), -1}
			i++
			if i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9' {
				k[1] = int(rs[i+1] - '0')
				i++
			}
			if t.digits == nil {
				t.digits = map[[2]int]float64{}
			}
			t.digits[k]++
		case c == '<':
			end := -1
			for j := i + 2; j < len(rs); j++ {
				if rs[j] == '>' {
					end = j
					break
				}
			}
			if end < 0 {
				t.lit++ // "$", and "<…" as they are
				continue
			}
			if t.groups == nil {
				t.groups = map[string]float64{}
			}
			t.groups[string(rs[i+2:end])]++
			for _, r := range rs[i : end+1] {
				t.glit += width(r)
			}
			i = end
		default:
			t.lit++
		}
	}
	return t
}

// size is what the pattern writes for one match, given the arguments a
// replacement function gets (match, captures…, position, string, groups?).
func (t *replTemplate) size(args []goja.Value) float64 {
	var groups *goja.Object
	if n := len(args); n > 0 {
		if o, ok := args[n-1].(*goja.Object); ok {
			groups, args = o, args[:n-1]
		}
	}
	if len(args) < 3 {
		return t.length
	}
	strLen := func(v goja.Value) float64 {
		if v == nil || goja.IsUndefined(v) {
			return 0
		}
		if _, ok := v.(*goja.Object); ok {
			v = v.ToString()
		}
		return strLength(v)
	}
	m := strLen(args[0])
	pos := args[len(args)-2].ToFloat()
	n := strLen(args[len(args)-1])
	caps := args[1 : len(args)-2]
	sz := t.lit + t.match*m + t.before*pos + t.after*math.Max(0, n-pos-m)
	for k, cnt := range t.digits {
		switch two := k[0]*10 + k[1]; {
		case k[1] >= 0 && two >= 1 && two <= len(caps):
			sz += cnt * strLen(caps[two-1])
		case k[0] >= 1 && k[0] <= len(caps):
			sz += cnt * strLen(caps[k[0]-1])
			if k[1] >= 0 {
				sz += cnt
			}
		default:
			sz += cnt * 2
			if k[1] >= 0 {
				sz += cnt
			}
		}
	}
	if groups == nil {
		return sz + t.glit
	}
	for name, cnt := range t.groups {
		sz += cnt * strLen(groups.Get(name))
	}
	return sz
}

// checkReplace sizes the result of orig (replace, replaceAll or
// Symbol.replace, called as c is) on the string str with the pattern
// repl (argument 1 of c), with at most matches matches.
func (l *limits) checkReplace(orig goja.Callable, c *goja.FunctionCall, str goja.String, search goja.Value, repl goja.Value, matches float64) {
	if _, isFn := goja.AssertFunction(repl); isFn {
		return
	}
	if o, ok := repl.(*goja.Object); ok { // converted once, as the built-in would
		repl = o.ToString()
		args := make([]goja.Value, len(c.Arguments))
		copy(args, c.Arguments)
		args[1] = repl
		c.Arguments = args
	}
	if _, ok := repl.(*goja.Symbol); ok {
		return // the built-in throws
	}
	tmpl := parseTemplate(repl)
	n := float64(str.Length())
	if n+matches*(tmpl.length+tmpl.dollars*n) <= l.maxChars() {
		return
	}
	// Run the replacement once, writing nothing, and add up the sizes.
	total := n
	counter := l.vm.ToValue(func(fc goja.FunctionCall) goja.Value {
		total += tmpl.size(fc.Arguments)
		if len(fc.Arguments) > 0 {
			total -= strLength(fc.Arguments[0])
		}
		return goja.Undefined()
	})
	var lastIndex goja.Value
	re, isRe := c.This.(*goja.Object)
	if isRe {
		lastIndex = re.Get("lastIndex")
	}
	var err error
	if isRe {
		_, err = orig(c.This, str, counter)
		if err == nil {
			err = re.Set("lastIndex", lastIndex)
		}
	} else {
		_, err = orig(str, search, counter)
	}
	if err != nil {
		panic(err)
	}
	l.checkChars(total)
}

// wrapReplace puts the checks on String.prototype.replace and replaceAll
// (a search value that is not an object: an object's Symbol.replace does
// the work) and on RegExp.prototype[Symbol.replace].
func (l *limits) wrapReplace(sp *goja.Object) error {
	vm := l.vm
	for _, name := range []string{"replace", "replaceAll"} {
		orig, ok := goja.AssertFunction(sp.Get(name))
		if !ok {
			continue
		}
		all := name == "replaceAll"
		if _, err := l.wrap(sp, name, func(c *goja.FunctionCall) {
			if c.This == nil || goja.IsUndefined(c.This) || goja.IsNull(c.This) {
				return // the built-in throws
			}
			if _, ok := c.Argument(0).(*goja.Object); ok {
				return
			}
			if _, ok := c.This.(*goja.Object); ok {
				return // converted by the built-in (a String object, say): not sized
			}
			str, ok := c.This.ToString().(goja.String)
			if !ok {
				return
			}
			search := l.argOnce(c, 0, toString)
			if len(c.Arguments) < 2 {
				return
			}
			matches := 1.0
			if all {
				matches = float64(str.Length()) + 1
				if s := search.String(); s != "" {
					matches = float64(strings.Count(str.String(), s))
				}
			}
			l.checkReplace(func(this goja.Value, args ...goja.Value) (goja.Value, error) {
				return orig(this, args...)
			}, c, str, search, c.Arguments[1], matches)
		}); err != nil {
			return err
		}
	}
	rp := vm.Get("RegExp").ToObject(vm).Get("prototype").ToObject(vm)
	orig, ok := goja.AssertFunction(rp.GetSymbol(goja.SymReplace))
	if !ok {
		return nil
	}
	return l.wrapSym(rp, goja.SymReplace, func(c *goja.FunctionCall) {
		if _, ok := c.This.(*goja.Object); !ok || len(c.Arguments) < 2 {
			return // the built-in throws, or replaces with "undefined"
		}
		s := l.argOnce(c, 0, toString)
		str, ok := s.(goja.String)
		if !ok {
			return
		}
		l.checkReplace(orig, c, str, nil, c.Arguments[1], float64(str.Length())+1)
	})
}

// strLength is the length of primitive v as a string, in UTF-16 units.
func strLength(v goja.Value) float64 {
	if s, ok := v.(goja.String); ok {
		return float64(s.Length())
	}
	n := 0
	for _, r := range v.String() {
		n += max(utf16.RuneLen(r), 1)
	}
	return float64(n)
}

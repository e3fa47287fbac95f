package schema

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The fast path is built from the reference's compiled schema, not from the
// raw document: whatever the reference ignores (unknown keywords, format as
// an annotation) the fast path ignores too, and every keyword the reference
// compiled that the fast path does not implement sends the whole schema to
// the reference.

// maxFastDepth bounds the nesting of schemas the fast path compiles.
const maxFastDepth = 64

// maxFastUnique is the largest array whose uniqueItems the fast path checks
// (pairwise); longer arrays go to the reference, which hashes.
const maxFastUnique = 32

type status uint8

const (
	stOK status = iota
	stFail
	stUnsupported
)

// JSON types as a bit set; an integral number has both tInteger and tNumber.
const (
	tNull uint8 = 1 << iota
	tBool
	tInteger
	tNumber
	tString
	tArray
	tObject
)

type addlMode uint8

const (
	addlNone addlMode = iota
	addlForbid
	addlSchema
)

type prop struct {
	name string
	n    *node
}

// node is one compiled schema of the fast path. It is immutable.
type node struct {
	reject bool // the false schema
	types  uint8
	tnames []string
	// typeOnly: the node checks at most the type of the value (no const,
	// enum or type-specific keyword); the object loop tests it inline.
	typeOnly bool

	hasConst bool
	constVal any
	enum     []any
	hasEnum  bool
	// enumIdx indexes an enum of more than a few members (indexEnums).
	enumIdx *enumIndex

	// object keywords
	obj       bool
	props     []prop // sorted by name
	propSet   map[string]struct{}
	required  []string // every required name, in the schema's order
	addl      addlMode
	addlNode  *node
	minProps  int
	maxProps  int
	objBounds bool

	// array keywords
	arr      bool
	minItems int
	maxItems int
	unique   bool
	prefix   []*node
	items    *node

	// string keywords
	str     bool
	minLen  int
	maxLen  int
	pattern *regexp.Regexp

	// number keywords
	num        bool
	min, max   *bound
	exMin      *bound
	exMax      *bound
	multipleOf *multiple
}

// buildFast compiles s for the fast path, or returns nil when s uses a
// keyword the fast path does not implement.
func buildFast(s *jsonschema.Schema) *node {
	return build(s, 0)
}

func build(s *jsonschema.Schema, depth int) *node {
	if s == nil || depth > maxFastDepth {
		return nil
	}
	if s.Bool != nil {
		return &node{reject: !*s.Bool}
	}
	if s.DraftVersion != 2020 ||
		s.Ref != nil || s.RecursiveRef != nil || s.DynamicRef != nil || s.RecursiveAnchor || s.DynamicAnchor != "" ||
		s.Not != nil || s.AllOf != nil || s.AnyOf != nil || s.OneOf != nil || s.If != nil || s.Then != nil || s.Else != nil ||
		s.Format != nil ||
		s.PropertyNames != nil || len(s.PatternProperties) > 0 || len(s.Dependencies) > 0 || len(s.DependentRequired) > 0 ||
		len(s.DependentSchemas) > 0 || s.UnevaluatedProperties != nil ||
		s.Contains != nil || s.MinContains != nil || s.MaxContains != nil || s.Items != nil || s.AdditionalItems != nil ||
		s.UnevaluatedItems != nil ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil {
		return nil
	}
	var enumX *enumExt
	for _, e := range s.Extensions {
		x, ok := e.(*enumExt)
		if !ok {
			return nil
		}
		enumX = x
	}
	n := &node{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	if s.Types != nil && !s.Types.IsEmpty() {
		n.tnames = s.Types.ToStrings()
		for _, t := range n.tnames {
			switch t {
			case "null":
				n.types |= tNull
			case "boolean":
				n.types |= tBool
			case "integer":
				n.types |= tInteger
			case "number":
				n.types |= tNumber
			case "string":
				n.types |= tString
			case "array":
				n.types |= tArray
			case "object":
				n.types |= tObject
			default:
				return nil
			}
		}
	}
	if s.Const != nil {
		n.hasConst, n.constVal = true, *s.Const
	}
	if s.Enum != nil {
		n.hasEnum, n.enum = true, s.Enum.Values
	}
	if enumX != nil {
		n.hasEnum, n.enum, n.enumIdx = true, enumX.vals, enumX.idx
	}

	// object --
	if len(s.Properties) > 0 {
		n.obj = true
		n.propSet = make(map[string]struct{}, len(s.Properties))
		for name, ps := range s.Properties {
			pn := build(ps, depth+1)
			if pn == nil {
				return nil
			}
			n.props = append(n.props, prop{name: name, n: pn})
			n.propSet[name] = struct{}{}
		}
		slices.SortFunc(n.props, func(a, b prop) int { return strings.Compare(a.name, b.name) })
	}
	if len(s.Required) > 0 {
		n.obj, n.required = true, s.Required
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		n.obj = true
		if !a {
			n.addl = addlForbid
		}
	case *jsonschema.Schema:
		n.obj = true
		an := build(a, depth+1)
		if an == nil {
			return nil
		}
		n.addl, n.addlNode = addlSchema, an
	default:
		return nil
	}
	if s.MinProperties != nil {
		n.obj, n.objBounds, n.minProps = true, true, *s.MinProperties
	}
	if s.MaxProperties != nil {
		n.obj, n.objBounds, n.maxProps = true, true, *s.MaxProperties
	}

	// array --
	if s.MinItems != nil {
		n.arr, n.minItems = true, *s.MinItems
	}
	if s.MaxItems != nil {
		n.arr, n.maxItems = true, *s.MaxItems
	}
	if s.UniqueItems {
		n.arr, n.unique = true, true
	}
	for _, ps := range s.PrefixItems {
		pn := build(ps, depth+1)
		if pn == nil {
			return nil
		}
		n.arr = true
		n.prefix = append(n.prefix, pn)
	}
	if s.Items2020 != nil {
		in := build(s.Items2020, depth+1)
		if in == nil {
			return nil
		}
		n.arr, n.items = true, in
	}

	// string --
	if s.MinLength != nil {
		n.str, n.minLen = true, *s.MinLength
	}
	if s.MaxLength != nil {
		n.str, n.maxLen = true, *s.MaxLength
	}
	if s.Pattern != nil {
		re := goPattern(s.Pattern.String())
		if re == nil {
			return nil
		}
		n.str, n.pattern = true, re
	}

	// number --
	if s.Minimum != nil {
		n.num, n.min = true, newBound(s.Minimum)
	}
	if s.Maximum != nil {
		n.num, n.max = true, newBound(s.Maximum)
	}
	if s.ExclusiveMinimum != nil {
		n.num, n.exMin = true, newBound(s.ExclusiveMinimum)
	}
	if s.ExclusiveMaximum != nil {
		n.num, n.exMax = true, newBound(s.ExclusiveMaximum)
	}
	if s.MultipleOf != nil {
		if s.MultipleOf.Sign() <= 0 {
			return nil
		}
		n.num, n.multipleOf = true, newMultiple(s.MultipleOf)
	}
	n.typeOnly = !n.hasConst && !n.hasEnum && !n.obj && !n.arr && !n.str && !n.num
	return n
}

// failure is a fast-path verdict against the value; segs is the instance
// path, innermost first. It is allocated only when validation fails.
type failure struct {
	segs []string
	msg  string
}

func failf(format string, args ...any) *failure {
	return &failure{msg: fmt.Sprintf(format, args...)}
}

func (f *failure) toError() *ValidationError {
	slices.Reverse(f.segs)
	return &ValidationError{Path: pointer(f.segs), Message: f.msg}
}

// typeOf classifies a canonical value; ok is false for anything else (the
// reference then decides).
func typeOf(v any) (t uint8, ok bool) {
	switch x := v.(type) {
	case nil:
		return tNull, true
	case bool:
		return tBool, true
	case string:
		return tString, true
	case int64:
		return tInteger | tNumber, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
		if math.Trunc(x) == x {
			return tInteger | tNumber, true
		}
		return tNumber, true
	case map[string]any:
		return tObject, true
	case []any:
		return tArray, true
	}
	return 0, false
}

func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		if math.Trunc(x) == x {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// validate gives n's verdict on v, stopping at the first failure; the
// error to name for a value it refuses is best's.
func (n *node) validate(v any) (status, *failure) {
	if n.reject {
		return stFail, failf("value not allowed here (schema is false)")
	}
	t, ok := typeOf(v)
	if !ok {
		return stUnsupported, nil
	}
	if n.types != 0 && n.types&t == 0 {
		return stFail, failf("expected %s, got %s", strings.Join(n.tnames, " or "), typeName(v))
	}
	if n.hasConst {
		eq, ok := equal(v, n.constVal)
		if !ok {
			return stUnsupported, nil
		}
		if !eq {
			return stFail, failf("%s", mustBeOneOf([]any{n.constVal}))
		}
	}
	if n.enumIdx != nil {
		found, ok := n.enumIdx.contains(v)
		if !ok {
			return stUnsupported, nil
		}
		if !found {
			return stFail, failf("%s", mustBeOneOf(n.enum))
		}
	} else if n.hasEnum {
		found := false
		for _, e := range n.enum {
			eq, ok := equal(v, e)
			if !ok {
				return stUnsupported, nil
			}
			if eq {
				found = true
				break
			}
		}
		if !found {
			return stFail, failf("%s", mustBeOneOf(n.enum))
		}
	}
	switch x := v.(type) {
	case map[string]any:
		if n.obj {
			return n.validateObject(x)
		}
	case []any:
		if n.arr {
			return n.validateArray(x)
		}
	case string:
		if n.str {
			return n.validateString(x)
		}
	case int64:
		if n.num {
			return n.validateInt(x)
		}
	case float64:
		if n.num {
			return n.validateFloat(x)
		}
	}
	return stOK, nil
}

func (n *node) validateObject(obj map[string]any) (status, *failure) {
	// The members first, then the object's own keywords: of a member's
	// error and the object's, the reference names the member's, the
	// deeper one.
	found := 0
	for i := range n.props {
		p := &n.props[i]
		pv, ok := obj[p.name]
		if !ok {
			continue
		}
		found++
		if p.n.reject {
			f := failf("%s", propertyFalseMessage(p.name))
			f.segs = append(f.segs, p.name)
			return stFail, f
		}
		if p.n.typeOnly {
			if t, ok := typeOf(pv); ok && (p.n.types == 0 || p.n.types&t != 0) {
				continue
			}
		}
		st, f := p.n.validate(pv)
		if st != stOK {
			if f != nil {
				f.segs = append(f.segs, p.name)
			}
			return st, f
		}
	}
	if n.addl == addlSchema && len(obj) != found {
		for k, pv := range obj {
			if _, ok := n.propSet[k]; ok {
				continue
			}
			if st, f := n.addlNode.validate(pv); st != stOK {
				return st, f // worded by best
			}
		}
	}
	return n.objectOwn(obj, found)
}

// objectOwn checks the object's own keywords, in the reference's order;
// found is the number of its members that properties declares.
func (n *node) objectOwn(obj map[string]any, found int) (status, *failure) {
	if n.objBounds {
		if n.minProps >= 0 && len(obj) < n.minProps {
			return stFail, failf(minPropertiesMsg, n.minProps, len(obj))
		}
		if n.maxProps >= 0 && len(obj) > n.maxProps {
			return stFail, failf(maxPropertiesMsg, n.maxProps, len(obj))
		}
	}
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			var names []string
			for _, r := range n.required {
				if _, ok := obj[r]; !ok {
					names = append(names, r)
				}
			}
			return stFail, failf("%s", missingMessage(names))
		}
	}
	if n.addl == addlForbid && len(obj) != found {
		var extra []string
		for k := range obj {
			if _, ok := n.propSet[k]; !ok {
				extra = append(extra, k)
			}
		}
		return stFail, failf("%s", additionalMessage(extra))
	}
	return stOK, nil
}

// best returns the failure the reference names for v, which n refuses:
// the deepest, of failures alike deep the first in name (index) order, so
// a member's or an item's before its object's or array's own (the first
// failure validate meets, in an object of a wrong member and a wrong
// nested one, or a too short array of a wrong item, was another error
// than the same schema behind a $ref was told). stUnsupported when it
// meets a value it does not check (the reference then words the error).
func (n *node) best(v any) (status, *failure) {
	if n.headOK(v) {
		switch x := v.(type) {
		case map[string]any:
			if n.obj {
				return n.bestObject(x)
			}
		case []any:
			if n.arr {
				return n.bestArray(x)
			}
		}
	}
	return n.validate(v)
}

// headOK reports whether v passes the checks the reference ends a schema
// at when they fail (false, type, const, enum).
func (n *node) headOK(v any) bool {
	c := *n
	c.obj, c.arr, c.str, c.num = false, false, false, false
	st, _ := c.validate(v)
	return st == stOK
}

// deeper reports whether failure f (at member or item key) is to be named
// rather than b: deeper, or as deep and first (keys come in order).
func deeper(f, b *failure) bool {
	return b == nil || len(f.segs) > len(b.segs)
}

func (n *node) bestObject(obj map[string]any) (status, *failure) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b *failure
	found := 0
	for _, k := range keys {
		var sub *node
		if i, ok := slices.BinarySearchFunc(n.props, k, func(p prop, name string) int { return strings.Compare(p.name, name) }); ok {
			found++
			sub = n.props[i].n
			if sub.reject {
				if f := failf("%s", propertyFalseMessage(k)); deeper(f.at(k), b) {
					b = f
				}
				continue
			}
		} else if n.addl == addlSchema {
			sub = n.addlNode
		} else {
			continue
		}
		st, f := sub.best(obj[k])
		if st == stUnsupported {
			return st, nil
		}
		if st == stFail && deeper(f.at(k), b) {
			b = f
		}
	}
	if b != nil {
		return stFail, b
	}
	return n.objectOwn(obj, found)
}

func (n *node) bestArray(arr []any) (status, *failure) {
	var b *failure
	for i, item := range arr {
		sub, last := n.itemNode(i)
		if sub == nil {
			if last {
				break
			}
			continue
		}
		if sub.reject {
			if f := n.itemRejected(i); deeper(f, b) {
				b = f
			}
			continue
		}
		st, f := sub.best(item)
		if st == stUnsupported {
			return st, nil
		}
		if st == stFail && deeper(f.at(strconv.Itoa(i)), b) {
			b = f
		}
	}
	if b != nil {
		return stFail, b
	}
	return n.arrayOwn(arr)
}

// at puts f under member or item key and returns it.
func (f *failure) at(key string) *failure {
	f.segs = append(f.segs, key)
	return f
}

func (n *node) validateArray(arr []any) (status, *failure) {
	if st, f := n.arrayOwn(arr); st != stOK {
		return st, f
	}
	for i, item := range arr {
		sub, last := n.itemNode(i)
		if sub == nil {
			if last {
				break
			}
			continue
		}
		if sub.reject {
			return stFail, n.itemRejected(i)
		}
		st, f := sub.validate(item)
		if st != stOK {
			if f != nil {
				f.segs = append(f.segs, strconv.Itoa(i))
			}
			return st, f
		}
	}
	return stOK, nil
}

// itemNode returns the schema of item i, nil if none applies; last is
// set when none applies to the items after it either.
func (n *node) itemNode(i int) (sub *node, last bool) {
	if i < len(n.prefix) {
		return n.prefix[i], false
	}
	return n.items, n.items == nil
}

// itemRejected is the failure of item i refused by a false schema.
func (n *node) itemRejected(i int) *failure {
	f := failf("item %d not allowed (its schema in prefixItems is false)", i)
	if i >= len(n.prefix) {
		f = failf("%s", itemsFalseMessage(strconv.Itoa(i)))
	}
	f.segs = append(f.segs, strconv.Itoa(i))
	return f
}

// arrayOwn checks the array's own keywords, in the reference's order.
func (n *node) arrayOwn(arr []any) (status, *failure) {
	if n.minItems >= 0 && len(arr) < n.minItems {
		return stFail, failf(minItemsMsg, n.minItems, len(arr))
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		return stFail, failf(maxItemsMsg, n.maxItems, len(arr))
	}
	if n.unique && len(arr) > 1 {
		if len(arr) > maxFastUnique {
			return stUnsupported, nil
		}
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				eq, ok := equal(arr[i], arr[j])
				if !ok {
					return stUnsupported, nil
				}
				if eq {
					return stFail, failf("items at %d and %d are equal", j, i)
				}
			}
		}
	}
	return stOK, nil
}

func (n *node) validateString(s string) (status, *failure) {
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen {
			return stFail, failf(minLengthMsg, n.minLen, l)
		}
		if n.maxLen >= 0 && l > n.maxLen {
			return stFail, failf(maxLengthMsg, n.maxLen, l)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return stFail, failf("does not match pattern %q", n.pattern.String())
	}
	return stOK, nil
}

func (n *node) validateInt(i int64) (status, *failure) {
	if n.min != nil && n.min.cmpInt(i) < 0 {
		return stFail, failf("must be >= %s, got %d", n.min.text, i)
	}
	if n.max != nil && n.max.cmpInt(i) > 0 {
		return stFail, failf("must be <= %s, got %d", n.max.text, i)
	}
	if n.exMin != nil && n.exMin.cmpInt(i) <= 0 {
		return stFail, failf("must be > %s, got %d", n.exMin.text, i)
	}
	if n.exMax != nil && n.exMax.cmpInt(i) >= 0 {
		return stFail, failf("must be < %s, got %d", n.exMax.text, i)
	}
	if n.multipleOf != nil && !n.multipleOf.ofInt(i) {
		return stFail, failf("must be a multiple of %s, got %d", n.multipleOf.text, i)
	}
	return stOK, nil
}

func (n *node) validateFloat(x float64) (status, *failure) {
	// The value is written as the reference writes it, and as a bound is
	// (ratText: 9300000000000000000, 0 for -0), not with %v (9.3e+18).
	if n.min != nil && n.min.cmpFloat(x) < 0 {
		return stFail, failf("must be >= %s, got %s", n.min.text, ratText(decRat(x)))
	}
	if n.max != nil && n.max.cmpFloat(x) > 0 {
		return stFail, failf("must be <= %s, got %s", n.max.text, ratText(decRat(x)))
	}
	if n.exMin != nil && n.exMin.cmpFloat(x) <= 0 {
		return stFail, failf("must be > %s, got %s", n.exMin.text, ratText(decRat(x)))
	}
	if n.exMax != nil && n.exMax.cmpFloat(x) >= 0 {
		return stFail, failf("must be < %s, got %s", n.exMax.text, ratText(decRat(x)))
	}
	if n.multipleOf != nil && !n.multipleOf.ofFloat(x) {
		return stFail, failf("must be a multiple of %s, got %s", n.multipleOf.text, ratText(decRat(x)))
	}
	return stOK, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

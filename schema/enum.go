package schema

import (
	"math"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Large enums
//
// The reference checks an enum by comparing the value with each member in
// turn (numbers as big.Rat parsed from their text), so an array of 200 000
// items against an enum of 10 000 members took 24 s on the fast path
// (integers) and 41 s on the reference (strings, behind a $ref, as pydantic
// writes every enum), before the provider was asked and outside its
// deadline. An enum of more than a few members is an enumIndex: a hash
// lookup for a scalar value, on both paths (enumExt on the reference's).

// minIndexedEnum is the smallest enum looked up in an enumIndex.
const minIndexedEnum = 9

// enumIndex holds the members of an enum for lookup, by JSON equality as
// the reference defines it (numbers as rationals of their shortest
// decimal form: 1 and 1.0 are one member).
type enumIndex struct {
	strs       map[string]struct{}
	ints       map[int64]struct{}   // every member that is an integer within int64
	floats     map[float64]struct{} // the other numbers
	null, t, f bool
	others     []any // arrays and objects, compared in turn
}

// newEnumIndex returns the index of vals, nil when they are too few or
// one of them is not a canonical value.
func newEnumIndex(vals []any) *enumIndex {
	if len(vals) < minIndexedEnum {
		return nil
	}
	x := &enumIndex{strs: map[string]struct{}{}, ints: map[int64]struct{}{}, floats: map[float64]struct{}{}}
	for _, v := range vals {
		switch m := v.(type) {
		case nil:
			x.null = true
		case bool:
			if m {
				x.t = true
			} else {
				x.f = true
			}
		case string:
			x.strs[m] = struct{}{}
		case int64, float64:
			i, f, isInt, ok := numKey(m)
			switch {
			case !ok:
				return nil
			case isInt:
				x.ints[i] = struct{}{}
			default:
				x.floats[f] = struct{}{}
			}
		case []any, map[string]any:
			x.others = append(x.others, m)
		default:
			return nil
		}
	}
	return x
}

// numKey returns the key of a canonical number: the integer it is when it
// is one within int64 (a float64 beyond 2^53 is the integer of its
// shortest decimal form, as the reference reads it), else the float64.
// ok is false for anything else.
func numKey(v any) (i int64, f float64, isInt, ok bool) {
	switch x := v.(type) {
	case int64:
		return x, 0, true, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, 0, false, false
		}
		if math.Trunc(x) != x || math.Abs(x) >= 1<<63 {
			// Not an integer, or beyond every int64 (its decimal
			// form too): equal to this float64 alone.
			return 0, x, false, true
		}
		if math.Abs(x) <= 1<<53 {
			return int64(x), 0, true, true
		}
		r := decRat(x)
		if !r.IsInt() || !r.Num().IsInt64() {
			return 0, 0, false, false
		}
		return r.Num().Int64(), 0, true, true
	}
	return 0, 0, false, false
}

// contains reports whether v is a member; ok is false when v is not a
// canonical value (the caller then compares in turn).
func (x *enumIndex) contains(v any) (found, ok bool) {
	switch y := v.(type) {
	case nil:
		return x.null, true
	case bool:
		if y {
			return x.t, true
		}
		return x.f, true
	case string:
		_, found = x.strs[y]
		return found, true
	case int64, float64:
		i, f, isInt, ok := numKey(y)
		switch {
		case !ok:
			return false, false
		case isInt:
			_, found = x.ints[i]
		default:
			_, found = x.floats[f]
		}
		return found, true
	case []any, map[string]any:
		for _, o := range x.others {
			eq, ok := equal(v, o)
			if !ok {
				return false, false
			}
			if eq {
				return true, true
			}
		}
		return false, true
	}
	return false, false
}

// enumExt is the enum keyword of a compiled schema whose enum is indexed,
// in the reference's place (indexEnums).
type enumExt struct {
	vals []any
	idx  *enumIndex
}

func (e *enumExt) Validate(ctx *jsonschema.ValidatorContext, v any) {
	found, ok := e.idx.contains(v)
	if !ok {
		// Not a canonical value (uint64, json.Number): the
		// reference's own comparison, member by member.
		for _, w := range e.vals {
			eq, err := ctx.Equals(v, w)
			if err != nil {
				ctx.AddErr(err)
				return
			}
			if eq {
				return
			}
		}
	}
	if !found {
		ctx.AddError(&kind.Enum{Got: v, Want: e.vals})
	}
}

// indexEnums replaces, in the compiled schema root and its subschemas,
// each enum of minIndexedEnum members or more by an enumExt. Left to the
// reference are an enum beside a $ref of a draft before 2019-09 (which
// ignores the $ref's siblings but for enum, checked before it) and one
// beside an asserted format (checked after enum, ending the schema's
// checks there).
func indexEnums(root *jsonschema.Schema) {
	for _, n := range newCostGraph(root).nodes {
		s := n.s
		if s.Enum == nil || s.Format != nil || s.Ref != nil && s.DraftVersion < 2019 {
			continue
		}
		if idx := newEnumIndex(s.Enum.Values); idx != nil {
			s.Extensions = append(s.Extensions, &enumExt{vals: s.Enum.Values, idx: idx})
			s.Enum = nil
		}
	}
}

// enumFirst undoes, in ve's tree, what moving enum to an enumExt changed:
// the reference ends a schema's checks at a failed enum, reporting it
// alone, where the extension runs after the others. The errors of one
// evaluation of a schema are the causes of its group, or of the $ref (or
// the root) that applied it; when one of them is that schema's enum, it
// is the only one kept.
func enumFirst(ve *jsonschema.ValidationError) {
	var of string // the schema whose errors ve's causes are
	switch k := ve.ErrorKind.(type) {
	case *kind.Group:
		of = ve.SchemaURL
	case *kind.Reference:
		of = k.URL
	case *kind.Schema:
		of = k.Location
	}
	for _, c := range ve.Causes {
		if _, ok := c.ErrorKind.(*kind.Enum); ok && of != "" && c.SchemaURL == of {
			if _, group := ve.ErrorKind.(*kind.Group); group {
				*ve = *c
			} else {
				ve.Causes = []*jsonschema.ValidationError{c}
			}
			return
		}
	}
	for _, c := range ve.Causes {
		enumFirst(c)
	}
}

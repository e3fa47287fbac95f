package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validator validates values against one compiled schema. It is immutable
// and safe for concurrent use.
type Validator struct {
	name string
	doc  map[string]any
	ref  *jsonschema.Schema // nil: accept any value
	fast *node              // nil: use ref
	// insts holds compilations of a schema with ECMA patterns, one per
	// concurrent validation (nil: ref has no pattern and is used as is).
	insts *refPool
	// uniqueRec: a uniqueItems schema can apply at many levels of one
	// value (it is on a recursive path), so the value's arrays are
	// sized before the reference hashes them (maxUniqueWork).
	uniqueRec bool
}

// ValidationError says where an instance violates its schema and how.
type ValidationError struct {
	// Path is the JSON pointer of the offending value in the instance
	// ("" for the instance itself).
	Path string
	// Message is short and readable: "expected integer, got string".
	Message string
}

func (e *ValidationError) Error() string {
	p := e.Path
	switch {
	case p == "":
		p = "/"
	case strings.HasSuffix(p, "/") || strings.Contains(p, "//"):
		// A member named "" is an empty step: "/" alone read as the
		// instance itself.
		p += ` (a step is a member named "")`
	}
	return "at " + p + ": " + e.Message
}

// Compile compiles doc, the schema of the tool (or part of a tool) called
// name. A nil or empty doc yields a validator that accepts any value. An
// uncompilable schema returns an error naming name and what is wrong.
func Compile(name string, doc map[string]any) (*Validator, error) {
	v := &Validator{name: name, doc: doc}
	if len(doc) == 0 {
		return v, nil
	}
	norm, err := normalizedCopy(doc)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %v", name, err)
	}
	if n := countSubschemas(norm, 0, 0); n > maxSubschemas {
		return nil, fmt.Errorf("schema of %s is invalid: it has more than %d subschemas (properties, items, $defs, allOf branches, … each count), and compiling takes time that grows with the square of their number (200 000 took over ten minutes); split the tool, or describe uniform members with additionalProperties or patternProperties", name, maxSubschemas)
	}
	loc := schemaBase + url.PathEscape(name)
	if name == "" {
		loc = schemaBase + "unnamed"
	}
	start := time.Now()
	inst, patterns, err := compileRef(name, loc, norm, true)
	if err != nil {
		return nil, err
	}
	took := time.Since(start)
	v.ref = inst.sch
	v.fast = buildFast(inst.sch)
	v.uniqueRec = inst.uniqueRec
	if patterns {
		// v.ref is only read (by buildFast) from now on; validations
		// take instances of their own.
		v.insts = newRefPool(func() (*refInst, error) {
			i, _, err := compileRef(name, loc, norm, false)
			return i, err
		}, took >= slowCompile)
		v.insts.made = 1
		v.insts.put(inst)
	}
	return v, nil
}

// compileRef compiles norm with the reference; patterns reports whether it
// has ECMA patterns (whose matches share the instance's budget). check
// checks the schema's validation cost and reference cycles (once: further
// instances of a checked schema need not be).
func compileRef(name, loc string, norm any, check bool) (*refInst, bool, error) {
	b := &matchBudget{left: patternTimeout}
	st := &engineState{compiling: true}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	c.UseRegexpEngine(ecmaEngine(b, st))
	if err := c.AddResource(loc, norm); err != nil {
		return nil, false, fmt.Errorf("schema of %s: %v", name, err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		var le *jsonschema.LoadURLError
		if errors.As(err, &le) && namesDialect(norm, le.URL, 0) {
			return nil, false, fmt.Errorf("schema of %s is invalid: $schema %q is not a JSON Schema draft this host knows (https://json-schema.org/draft/2020-12/schema, …/2019-09/schema, http://json-schema.org/draft-07/schema#, draft-06, draft-04), and dialects are not loaded; remove $schema to use 2020-12, or name the draft the schema follows", name, le.URL)
		}
		where := ""
		var pe *jsonschema.JSONPointerNotFoundError
		var ae *jsonschema.AnchorNotFoundError
		var ie *jsonschema.InvalidJsonPointerError
		at := ""
		switch {
		case le != nil:
			at = refTo(norm, le.URL, "", 0)
		case errors.As(err, &pe):
			at = localRefTo(norm, pe.URL)
		case errors.As(err, &ae):
			at = localRefTo(norm, ae.Reference)
		case errors.As(err, &ie):
			at = localRefTo(norm, ie.URL)
		}
		if at != "" {
			where = "at " + at + ": "
		}
		return nil, false, fmt.Errorf("schema of %s is invalid: %s%s", name, where, describeCompileError(err, loc, norm))
	}
	indexEnums(sch)
	uniqueRec := false
	if check {
		// The cost first: refCycle validates, which an exponential
		// schema would not finish.
		g, err := checkCost(sch, loc)
		if err != nil {
			return nil, false, fmt.Errorf("schema of %s is invalid: %v", name, err)
		}
		uniqueRec = g.uniqueOnCycle()
		if cyc := refCycle(sch); cyc != "" {
			return nil, false, fmt.Errorf("schema of %s is invalid: %s (a $ref that comes back to itself without descending into the value never ends)", name, strings.ReplaceAll(cyc, loc, "schema"))
		}
	}
	b.left = patternTimeout
	st.compiling = false
	return &refInst{sch: sch, b: b, uniqueRec: uniqueRec}, st.used, nil
}

// refTo returns the JSON pointer of the first $ref (or $dynamicRef,
// $recursiveRef) in doc that may name document u, "" if none does; ptr
// is doc's own pointer. A relative reference matches the end of u.
func refTo(doc any, u, ptr string, depth int) string {
	return refWhere(doc, func(r string) bool {
		file, _, _ := strings.Cut(r, "#")
		for {
			t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(file, "../"), "./"), "/")
			if t == file {
				break
			}
			file = t
		}
		return file != "" && strings.HasSuffix(u, file)
	}, ptr, depth)
}

// localRefTo returns the JSON pointer of the first reference in doc whose
// fragment is that of URL u (a JSON pointer or an anchor the reference
// found nowhere), "" if none is.
func localRefTo(doc any, u string) string {
	_, frag, ok := strings.Cut(u, "#")
	if !ok {
		return ""
	}
	unescaped := func(s string) string {
		if t, err := url.PathUnescape(s); err == nil {
			return t
		}
		return s
	}
	frag = unescaped(frag)
	return refWhere(doc, func(r string) bool {
		_, f, ok := strings.Cut(r, "#")
		return ok && unescaped(f) == frag
	}, "", 0)
}

// refWhere returns the JSON pointer of the first $ref, $dynamicRef or
// $recursiveRef in doc (whose pointer is ptr) that match accepts, "" if
// none is.
func refWhere(doc any, match func(ref string) bool, ptr string, depth int) string {
	if depth > 64 {
		return ""
	}
	switch x := doc.(type) {
	case map[string]any:
		for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
			if r, ok := x[kw].(string); ok && match(r) {
				return ptr + "/" + kw
			}
		}
		for _, k := range sortedKeys(x) {
			if at := refWhere(x[k], match, ptr+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), depth+1); at != "" {
				return at
			}
		}
	case []any:
		for i, v := range x {
			if at := refWhere(v, match, ptr+"/"+strconv.Itoa(i), depth+1); at != "" {
				return at
			}
		}
	}
	return ""
}

// namesDialect reports whether u is the $schema of doc or of a schema in
// it (a resource with a $schema of its own).
func namesDialect(doc any, u string, depth int) bool {
	if depth > 64 {
		return false
	}
	switch x := doc.(type) {
	case map[string]any:
		if d, ok := x["$schema"].(string); ok && strings.TrimSuffix(d, "#") == strings.TrimSuffix(u, "#") {
			return true
		}
		for _, v := range x {
			if namesDialect(v, u, depth+1) {
				return true
			}
		}
	case []any:
		for _, v := range x {
			if namesDialect(v, u, depth+1) {
				return true
			}
		}
	}
	return false
}

// cycleProbes are values of every JSON type, empty.
var cycleProbes = []any{nil, false, int64(0), 0.5, "", []any{}, map[string]any{}}

// refCycle validates a value of every type and returns the reference's
// message when one of them runs into a reference cycle at the top of the
// value, "" otherwise. Such a schema cannot validate that type at all
// (JSON Schema leaves the behaviour undefined; the reference refuses the
// value), so it is refused when it is compiled rather than on every call,
// where the caller would be blamed. Cycles under a property are not found
// (they need a value that has the property).
func refCycle(sch *jsonschema.Schema) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(patternTimedOut); !ok {
				panic(r)
			}
		}
	}()
	orRoot := func(s string) string {
		if s == "" {
			return "/"
		}
		return s
	}
	for _, v := range cycleProbes {
		var ve *jsonschema.ValidationError
		if err := sch.Validate(v); errors.As(err, &ve) {
			if k := findCycle(ve); k != nil {
				return fmt.Sprintf("reference cycle: %s and %s both resolve to %s", orRoot(k.KeywordLocation1), orRoot(k.KeywordLocation2), k.URL)
			}
		}
	}
	return ""
}

func findCycle(ve *jsonschema.ValidationError) *kind.RefCycle {
	if k, ok := ve.ErrorKind.(*kind.RefCycle); ok {
		return k
	}
	for _, c := range ve.Causes {
		if k := findCycle(c); k != nil {
			return k
		}
	}
	return nil
}

// MustCompile is Compile for literals in code and tests; it panics on error.
func MustCompile(name string, doc map[string]any) *Validator {
	v, err := Compile(name, doc)
	if err != nil {
		panic(err)
	}
	return v
}

// Schema returns the document the validator was compiled from (nil for the
// accept-anything validator made from a nil document). Callers must not
// modify it.
func (v *Validator) Schema() map[string]any { return v.doc }

// Name returns the name given to Compile.
func (v *Validator) Name() string { return v.name }

// Fast reports whether Validate uses the compiled fast path.
func (v *Validator) Fast() bool { return v.fast != nil }

// Validate checks value, a canonical generic value (see abi.Normalize). It
// returns nil or a *ValidationError.
func (v *Validator) Validate(value any) error {
	if v == nil || v.ref == nil {
		return nil
	}
	if v.fast != nil {
		switch st, _ := v.fast.validate(value); st {
		case stOK:
			return nil
		case stFail:
			// Refused: the error the reference would name, found
			// by a second walk (validate stops at the first).
			if st, f := v.fast.best(value); st == stFail {
				return f.toError()
			}
		}
		// stUnsupported: a non-canonical value or a rare case; ask the reference.
	}
	return v.validateRef(value)
}

// maxUniqueWork bounds the values a schema whose uniqueItems applies at
// many levels (Validator.uniqueRec) lets the reference hash: the sum, over
// the value's arrays, of the values each holds at any depth. A flat array
// counts its items once; a value 400 arrays deep over 400 000 integers
// counts them 400 times (and took 4 minutes). About a second or two.
const maxUniqueWork = 2_000_000

// arrayWork is the sum over v's arrays of the values each holds at any
// depth, counted until it passes limit.
func arrayWork(v any, limit int) int {
	work := 0
	var size func(v any) int
	size = func(v any) int {
		n := 1
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if work > limit {
					return n
				}
				n += size(e)
			}
			work += n - 1
		case map[string]any:
			for _, e := range x {
				if work > limit {
					return n
				}
				n += size(e)
			}
		}
		return n
	}
	size(v)
	return work
}

// validateRef validates with the reference validator only.
func (v *Validator) validateRef(value any) (verr error) {
	if v == nil || v.ref == nil {
		return nil
	}
	if v.uniqueRec {
		if w := arrayWork(value, maxUniqueWork); w > maxUniqueWork {
			return &ValidationError{Message: fmt.Sprintf("the value is too large to check uniqueItems under this recursive schema: its arrays hold more than %d values in all, counting every level (an array's items and all they hold; the check hashes each array whole, at every level it applies); send it flatter or in smaller parts", maxUniqueWork)}
		}
	}
	sch := v.ref
	if v.insts != nil {
		inst, err := v.insts.get()
		if err != nil {
			return &ValidationError{Message: err.Error()}
		}
		inst.b.left = patternTimeout
		defer func() {
			if r := recover(); r != nil {
				pt, ok := r.(patternTimedOut)
				if !ok {
					v.insts.drop() // in an unknown state: not given back
					panic(r)
				}
				verr = timedOutError(value, pt)
			}
			v.insts.put(inst)
		}()
		sch = inst.sch
	}
	err := sch.Validate(value)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		enumFirst(ve)
		relocate(ve, nil, value)
		return convertError(ve, value)
	}
	return &ValidationError{Message: err.Error()}
}

// relocate sets the location of each propertyNames and contentSchema
// failure in ve's tree (parent: the location of ve's parent, inst: the
// value validated). The reference gives such a failure its validator's
// location slice itself, whose elements the locations of siblings
// validated later overwrite (its length stays right): {"a": {"xyz": 1},
// "b": {}} failed "at /b" for a's property name. The location becomes
// the one object (string, for contentSchema) of inst that far below the
// parent's location and holding the name, else the parent's location.
func relocate(ve *jsonschema.ValidationError, parent []string, inst any) {
	switch k := ve.ErrorKind.(type) {
	case *kind.PropertyNames:
		ve.InstanceLocation = locate(parent, len(ve.InstanceLocation), inst, func(v any) bool {
			m, ok := v.(map[string]any)
			if ok {
				_, ok = m[k.Property]
			}
			return ok
		})
		return // its causes are located in the name
	case *kind.ContentSchema:
		ve.InstanceLocation = locate(parent, len(ve.InstanceLocation), inst, func(v any) bool {
			_, ok := v.(string)
			return ok
		})
		return // its causes are located in the decoded content
	}
	for _, c := range ve.Causes {
		relocate(c, ve.InstanceLocation, inst)
	}
}

// locate returns the location of the one value n tokens deep in inst,
// below parent, that match accepts; parent when there is none or more
// than one.
func locate(parent []string, n int, inst any, match func(any) bool) []string {
	at := slices.Clone(parent)
	if n <= len(parent) {
		return at
	}
	for _, tok := range parent {
		switch x := inst.(type) {
		case map[string]any:
			inst = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return at
			}
			inst = x[i]
		default:
			return at
		}
	}
	var found [][]string
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		if len(found) > 1 {
			return
		}
		if len(path) == n {
			if match(v) {
				found = append(found, slices.Clone(path))
			}
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for key, e := range x {
				walk(e, append(path, key))
			}
		case []any:
			for i, e := range x {
				walk(e, append(path, strconv.Itoa(i)))
			}
		}
	}
	walk(inst, at)
	if len(found) == 1 {
		return found[0]
	}
	return at
}

var _ error = (*ValidationError)(nil)

// convertError turns the reference's error tree into one short error: the
// first leaf cause, depth first.
// convertError picks the one innermost error that best says what is wrong.
// Under oneOf/anyOf (a WIT variant is a oneOf of its cases) every branch
// fails, each for its own reason; the first branch's ("tag must be
// 'circle'") is usually not the one the caller meant. The deepest error
// wins (the value inside the branch the caller chose), and at equal depth
// one that is not a mere type or constant mismatch; constants that failed
// at the same place are listed together ("must be one of 'circle',
// 'rect'").
//
// A type error is worded as the fast path words it, "expected string, got
// integer", the value's type read from value (the reference said "got
// number, want string" for 5, a whole number the fast path calls an
// integer: one schema with a $ref and one without told the same value two
// ways).
func convertError(ve *jsonschema.ValidationError, value any) *ValidationError {
	return convertErr(ve, false, &value)
}

// sameKeyword reports whether a and b are failures of one keyword.
func sameKeyword(a, b jsonschema.ErrorKind) bool {
	ka, kb := a.KeywordPath(), b.KeywordPath()
	return len(ka) > 0 && len(kb) > 0 && ka[0] == kb[0]
}

// locationBefore reports whether instance location a in value root
// comes before b: members in name order, items in index order, as the
// fast path meets them. The reference validates an object's members in
// Go's random map order, so errors alike at two members came in either
// order, and one value was told a different member's error from call to
// call. root is nil when the locations are not in a value (a property
// name's): tokens are then compared as strings.
func locationBefore(a, b []string, root *any) bool {
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			continue
		}
		if root != nil {
			if c, _ := valueAt(*root, a[:i]); c != nil {
				if _, isArr := c.([]any); isArr {
					x, errA := strconv.Atoi(a[i])
					y, errB := strconv.Atoi(b[i])
					if errA == nil && errB == nil {
						return x < y
					}
				}
			}
		}
		return a[i] < b[i]
	}
	return len(a) < len(b)
}

// valueAt is the value at loc (JSON Pointer tokens) in v.
func valueAt(v any, loc []string) (any, bool) {
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// convertErr is convertError; schemaText is set when the value validated
// is a schema (its metaschema's errors), whose strings may be quoted; root
// is the value validated, nil when the errors are not about it (a
// property name's).
func convertErr(ve *jsonschema.ValidationError, schemaText bool, root *any) (verr *ValidationError) {
	foldWholeValueErrors(ve, schemaText)
	mergeTypeAlternatives(ve)
	var ls []leaf
	chosenLeaves(ve, &ls)
	if len(ls) == 0 {
		collectLeaves(ve, &ls)
	}
	p := message.NewPrinter(language.English)
	best := ls[0]
	for _, l := range ls[1:] {
		// The deepest error; of errors at one place, the one that says
		// most (leafRank); of places alike deep, the first (a type error
		// at /0 before items: false refusing /2, as the fast path
		// names them: the rank chose /2, another item than the fast
		// path's for one array).
		d, bd := len(l.ve.InstanceLocation), len(best.ve.InstanceLocation)
		switch {
		case d != bd:
			if d > bd {
				best = l
			}
		case slices.Equal(l.ve.InstanceLocation, best.ve.InstanceLocation):
			r, br := leafRank(l.ve), leafRank(best.ve)
			// One schema's errors alike (dependentRequired of two
			// present properties) come in Go's random map order: the
			// first in text order is named, the same on every call.
			if r > br || r == br && l.ve.SchemaURL == best.ve.SchemaURL && sameKeyword(l.ve.ErrorKind, best.ve.ErrorKind) &&
				l.ve.ErrorKind.LocalizedString(p) < best.ve.ErrorKind.LocalizedString(p) {
				best = l
			}
		case locationBefore(l.ve.InstanceLocation, best.ve.InstanceLocation, root):
			best = l
		}
	}
	msg := shortened(best.ve.ErrorKind).LocalizedString(p)
	if k, ok := best.ve.ErrorKind.(*kind.Pattern); ok {
		// Worded as the fast path does: the reference quotes the string,
		// and the message goes into the audit log, which holds no params
		// (docs/audit.md) — a token that missed its pattern would.
		msg = fmt.Sprintf("does not match pattern %q", k.Want)
	}
	if k, ok := best.ve.ErrorKind.(*kind.Format); ok && !schemaText {
		// Likewise for a format asserted (draft-07 and before): the
		// reference quoted the string ("'hunter2' is not valid email").
		msg = formatMessage(k)
	}
	// Numeric bounds are worded as the fast path words them, with both
	// numbers exact: the reference prints them rounded to 16 digits
	// ("maximum: got 9.223372036854776×10¹⁸, want 9.223372036854776×10¹⁸"
	// for 2^63 against 2^63−1).
	if m := boundMessage(best.ve.ErrorKind); m != "" {
		msg = m
	}
	ptr := ""
	if i := strings.LastIndexByte(best.ve.SchemaURL, '#'); i >= 0 {
		ptr = best.ve.SchemaURL[i+1:]
	}
	switch best.ve.ErrorKind.(type) {
	case *kind.FalseSchema:
		msg = falseMessage(ptr, best.ve.InstanceLocation)
	case *kind.Not:
		msg = "value must not match the schema at " + ptr + "/not"
	case *kind.OneOf:
		if k := best.ve.ErrorKind.(*kind.OneOf); len(k.Subschemas) >= 2 {
			// The reference's "'oneOf' failed, subschemas 0, 1
			// matched" named neither the oneOf nor the rule.
			msg = fmt.Sprintf("value matches both %s/oneOf/%d and %s/oneOf/%d of the oneOf at %s/oneOf; it must match exactly one", ptr, k.Subschemas[0], ptr, k.Subschemas[1], ptr)
		}
	}
	defer func() { verr.Message += conditionNote(ptr) }()
	switch k := best.ve.ErrorKind.(type) {
	case *kind.Type:
		if !schemaText {
			got := k.Got
			if root != nil {
				if v, ok := valueAt(*root, best.ve.InstanceLocation); ok {
					got = typeName(v)
				}
			}
			msg = "expected " + strings.Join(k.Want, " or ") + ", got " + got
		}
	case *kind.Enum:
		msg = mustBeOneOf(k.Want)
	case *kind.Required:
		msg = missingMessage(k.Missing)
	case *kind.DependentRequired:
		msg = missingMessage(k.Missing) + fmt.Sprintf(" (dependentRequired: %q is present)", shortString(k.Prop))
	case *kind.Dependency:
		msg = missingMessage(k.Missing) + fmt.Sprintf(" (dependencies: %q is present)", shortString(k.Prop))
	case *kind.AdditionalProperties:
		msg = additionalMessage(slices.Clone(k.Properties))
	case *kind.MinLength:
		msg = fmt.Sprintf(minLengthMsg, k.Want, k.Got)
	case *kind.MaxLength:
		msg = fmt.Sprintf(maxLengthMsg, k.Want, k.Got)
	case *kind.MinItems:
		msg = fmt.Sprintf(minItemsMsg, k.Want, k.Got)
	case *kind.MaxItems:
		msg = fmt.Sprintf(maxItemsMsg, k.Want, k.Got)
	case *kind.MinProperties:
		msg = fmt.Sprintf(minPropertiesMsg, k.Want, k.Got)
	case *kind.MaxProperties:
		msg = fmt.Sprintf(maxPropertiesMsg, k.Want, k.Got)
	case *kind.Const:
		var wants []any
		for _, l := range ls {
			if c, ok := l.ve.ErrorKind.(*kind.Const); ok && l.ptr == best.ptr {
				if !slices.ContainsFunc(wants, func(w any) bool { eq, _ := equal(w, c.Want); return eq }) {
					wants = append(wants, c.Want)
				}
			}
		}
		msg = mustBeOneOf(wants)
	}
	return &ValidationError{Path: pointer(best.ve.InstanceLocation), Message: msg}
}

// boundMessage words a failed numeric bound with both numbers exact, as
// the fast path words it; "" for another error.
func boundMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Minimum:
		return fmt.Sprintf("must be >= %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("must be <= %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be > %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be < %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.MultipleOf:
		return fmt.Sprintf("must be a multiple of %s, got %s", ratText(k.Want), ratText(k.Got))
	}
	return ""
}

// foldWholeValueErrors makes leaves of the errors whose causes would
// mislead when reported alone. contains fails for the array as a whole:
// its causes are why each item did not match, and the deepest one ("at
// /0: got number, want string") read as if item 0 had to match. A
// propertyNames failure's causes are located in the key, a string of its
// own, so they were reported at the object ("at /: does not match pattern
// …") without naming the key; the key is named in the message.
func foldWholeValueErrors(ve *jsonschema.ValidationError, schemaText bool) {
	switch k := ve.ErrorKind.(type) {
	case *kind.Contains, *kind.MinContains:
		ve.Causes = nil
		return
	case *kind.PropertyNames:
		if len(ve.Causes) > 0 {
			inner := convertErr(&jsonschema.ValidationError{ErrorKind: &kind.Group{}, Causes: ve.Causes}, schemaText, nil)
			q, _ := json.Marshal(shortString(k.Property))
			ve.ErrorKind, ve.Causes = wordedKind(fmt.Sprintf("property name %s: %s", q, inner.Message)), nil
		}
		return
	}
	for _, c := range ve.Causes {
		foldWholeValueErrors(c, schemaText)
	}
}

// wordedKind is an error kind of a message worded here.
type wordedKind string

func (k wordedKind) KeywordPath() []string { return nil }

func (k wordedKind) LocalizedString(*message.Printer) string { return string(k) }

// mergeTypeAlternatives replaces, in ve's tree, an anyOf or oneOf each of
// whose branches failed only on its type by one type error wanting any of
// them: {"anyOf": [{"type": "string"}, {"type": "null"}]} (Optional[str]
// in pydantic) refusing 5 said "got number, want string", as if null were
// not allowed.
func mergeTypeAlternatives(ve *jsonschema.ValidationError) {
	for _, c := range ve.Causes {
		mergeTypeAlternatives(c)
	}
	switch ve.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
	default:
		return
	}
	var merged *kind.Type
	for _, c := range ve.Causes {
		t := onlyType(c)
		if t == nil || !slices.Equal(c.InstanceLocation, ve.InstanceLocation) {
			return
		}
		if merged == nil {
			merged = &kind.Type{Got: t.Got}
		}
		for _, w := range t.Want {
			if !slices.Contains(merged.Want, w) {
				merged.Want = append(merged.Want, w)
			}
		}
	}
	if merged != nil {
		ve.ErrorKind, ve.Causes = merged, nil
	}
}

// onlyType returns the type error ve is, alone or through errors of one
// cause ($ref), or nil.
func onlyType(ve *jsonschema.ValidationError) *kind.Type {
	for len(ve.Causes) == 1 {
		ve = ve.Causes[0]
	}
	if t, ok := ve.ErrorKind.(*kind.Type); ok && len(ve.Causes) == 0 {
		return t
	}
	return nil
}

// chosenLeaves collects the innermost errors of ve, keeping, under a
// oneOf or anyOf, only the branches whose constants matched (the variant
// case the value names) when there are any; when every branch failed a
// constant, only the constants are kept (the tag matches no case).
func chosenLeaves(ve *jsonschema.ValidationError, out *[]leaf) {
	if len(ve.Causes) == 0 {
		collectLeaves(ve, out)
		return
	}
	causes := ve.Causes
	switch ve.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
		var matched []*jsonschema.ValidationError
		for _, c := range causes {
			if !hasConst(c) {
				matched = append(matched, c)
			}
		}
		if len(matched) > 0 {
			causes = matched
		} else {
			// No branch's constant matched: the tag is what is wrong.
			for _, c := range causes {
				constLeaves(c, out)
			}
			return
		}
	}
	for _, c := range causes {
		chosenLeaves(c, out)
	}
}

func constLeaves(ve *jsonschema.ValidationError, out *[]leaf) {
	if _, ok := ve.ErrorKind.(*kind.Const); ok && len(ve.Causes) == 0 {
		collectLeaves(ve, out)
		return
	}
	for _, c := range ve.Causes {
		constLeaves(c, out)
	}
}

func hasConst(ve *jsonschema.ValidationError) bool {
	if _, ok := ve.ErrorKind.(*kind.Const); ok {
		return true
	}
	for _, c := range ve.Causes {
		if hasConst(c) {
			return true
		}
	}
	return false
}

// leafRank orders errors at one place: unevaluatedProperties or
// unevaluatedItems refusing a member or item say least (a member that
// failed the schema of a $ref or allOf branch declaring it is
// unevaluated too, as that branch's annotations are dropped: its own
// error says what is wrong), then constants (a variant's tag), then
// enums and types, then everything else.
func leafRank(ve *jsonschema.ValidationError) int {
	switch ve.ErrorKind.(type) {
	case *kind.FalseSchema:
		_, frag, _ := strings.Cut(ve.SchemaURL, "#")
		if kw, _ := lastKeyword(frag); kw == "unevaluatedProperties" || kw == "unevaluatedItems" {
			return -1
		}
	case *kind.Const:
		return 0
	case *kind.Enum, *kind.Type:
		return 1
	}
	return 2
}

// shortened returns k with the strings it quotes from the instance cut to
// a readable length: the reference quotes them whole, and a 1 MiB string
// that fails a pattern must not make a 1 MiB message.
func shortened(k jsonschema.ErrorKind) jsonschema.ErrorKind {
	switch x := k.(type) {
	case *kind.Pattern:
		c := *x
		c.Got = shortString(x.Got)
		return &c
	case *kind.Format:
		if s, ok := x.Got.(string); ok {
			c := *x
			c.Got = shortString(s)
			return &c
		}
	case *kind.AdditionalProperties:
		c := *x
		c.Properties = shortNames(x.Properties)
		return &c
	case *kind.PropertyNames:
		c := *x
		c.Property = shortString(x.Property)
		return &c
	}
	return k
}

// shortString cuts s to about 64 bytes, on a rune boundary.
func shortString(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// shortNames shortens each name and keeps the first ten.
func shortNames(names []string) []string {
	const n = 10
	out := make([]string, 0, min(len(names), n+1))
	for i, name := range names {
		if i == n {
			out = append(out, fmt.Sprintf("… %d more", len(names)-n))
			break
		}
		out = append(out, shortString(name))
	}
	return out
}

// formatMessage words a failed format without the value: the reason,
// unless it quotes the value (a date's or an address's parse error does).
func formatMessage(k *kind.Format) string {
	msg := "is not valid " + k.Want + " (format)"
	if k.Err == nil {
		return msg
	}
	reason := k.Err.Error()
	s, _ := k.Got.(string)
	if s != "" && strings.Contains(reason, s) || len(reason) > 120 {
		return msg
	}
	// A part of the value the reason quotes ('parsing time "2024-13-01"',
	// 'ParseAddr("zz::1")') is left out as the whole value is.
	reason = quotedText.ReplaceAllStringFunc(reason, func(q string) string {
		if u, err := strconv.Unquote(q); err == nil && u != "" && strings.Contains(s, u) {
			return "…"
		}
		return q
	})
	return msg + ": " + reason
}

// quotedText matches a string quoted as %q quotes it.
var quotedText = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// A failed count or length, worded alike on both paths (the reference
// said "minLength: got 0, want 1", the fast path "length must be at least
// 1, got 0", naming no keyword): the bound, the value's count, the keyword.
const (
	minLengthMsg     = "length must be at least %d, got %d (minLength)"
	maxLengthMsg     = "length must be at most %d, got %d (maxLength)"
	minItemsMsg      = "must have at least %d items, got %d (minItems)"
	maxItemsMsg      = "must have at most %d items, got %d (maxItems)"
	minPropertiesMsg = "must have at least %d properties, got %d (minProperties)"
	maxPropertiesMsg = "must have at most %d properties, got %d (maxProperties)"
)

// missingMessage words the required properties an object lacks, in the
// schema's order, alike on both paths (the reference said "missing
// properties 'a', 'b'", the fast path named the first alone).
func missingMessage(names []string) string {
	if len(names) == 1 {
		return fmt.Sprintf("missing required property %q", shortString(names[0]))
	}
	return "missing required properties " + quoteList(shortNames(names))
}

// additionalMessage words the members additionalProperties: false
// refuses, in name order (the reference listed them in Go's random map
// order), alike on both paths. It sorts names.
func additionalMessage(names []string) string {
	slices.Sort(names)
	if len(names) == 1 {
		return fmt.Sprintf("additional property %q not allowed", shortString(names[0]))
	}
	return "additional properties " + quoteList(shortNames(names)) + " not allowed"
}

// mustBeOneOf words an enum or const failure alike on both paths: each
// value as JSON but strings in single quotes ('dark blue', not the
// ambiguous [red dark blue]; the empty string as two quotes), each cut to about
// 64 bytes, and the first ten of a longer list (an enum of 10 000 names
// made a message of all of them). An empty enum allows nothing, and says so.
func mustBeOneOf(vals []any) string {
	const n = 10
	if len(vals) == 0 {
		return "no value is allowed (the enum is empty)"
	}
	parts := make([]string, 0, min(len(vals), n+1))
	for i, v := range vals {
		if i == n {
			parts = append(parts, fmt.Sprintf("… %d more", len(vals)-n))
			break
		}
		parts = append(parts, displayValue(v))
	}
	if len(parts) == 1 {
		return "value must be " + parts[0]
	}
	return "value must be one of " + strings.Join(parts, ", ")
}

func displayValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		q := strconv.Quote(shortString(x))
		q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
		return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
	case []any, map[string]any:
		b, err := json.Marshal(x)
		if err != nil {
			return "value"
		}
		return shortString(string(b))
	}
	return fmt.Sprint(v)
}

func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		sb.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return sb.String()
}

// describeCompileError shortens the reference's compile errors: metaschema
// violations become "at /properties/a/type: ..." lines.
func describeCompileError(err error, loc string, doc any) string {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			// A part of the document a $ref names outside the places
			// schemas are ("#/x-shapes/circle") is validated by itself:
			// its locations are relative to it.
			ref := ""
			if _, frag, _ := strings.Cut(sve.URL, "#"); frag != "" {
				if f, err := url.PathUnescape(frag); err == nil {
					frag = f
				}
				var part []string
				for _, tok := range strings.Split(frag, "/")[1:] {
					part = append(part, strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~"))
				}
				under(ve, part)
				if at := localRefTo(doc, sve.URL); at != "" {
					ref = "at " + at + ": the schema it refers to is invalid: "
				}
			}
			relocate(ve, nil, doc)
			foldWholeValueErrors(ve, true)
			var ls []leaf
			collectLeaves(ve, &ls)
			leaves := describeLeaves(ls)
			sort.Strings(leaves)
			leaves = dedupe(leaves)
			if len(leaves) > 3 {
				leaves = append(leaves[:3], "...")
			}
			return ref + strings.Join(leaves, "; ")
		}
	}
	var rxe *jsonschema.InvalidRegexError
	if errors.As(err, &rxe) {
		return fmt.Sprintf("pattern %q at %s is not a valid ECMA-262 regular expression: %v", rxe.Regex, strings.TrimPrefix(rxe.URL, loc+"#"), rxe.Err)
	}
	// A document beside the schema is named as its $ref was written.
	msg := strings.ReplaceAll(err.Error(), loc, "schema")
	return strings.ReplaceAll(msg, `"`+schemaBase, `"`)
}

// under puts each location of ve's tree under the pointer tokens part.
func under(ve *jsonschema.ValidationError, part []string) {
	ve.InstanceLocation = append(slices.Clip(part), ve.InstanceLocation...)
	for _, c := range ve.Causes {
		under(c, part)
	}
}

// leaf is one innermost error of a schema's validation against the
// metaschema.
type leaf struct {
	ptr string
	ve  *jsonschema.ValidationError
}

func collectLeaves(ve *jsonschema.ValidationError, out *[]leaf) {
	if len(ve.Causes) == 0 {
		ptr := pointer(ve.InstanceLocation)
		if ptr == "" {
			ptr = "/"
		}
		*out = append(*out, leaf{ptr, ve})
		return
	}
	for _, c := range ve.Causes {
		collectLeaves(c, out)
	}
}

// describeLeaves words the leaves for a schema author. Where a keyword
// failed an enum ("type": "integr"), the metaschema also reports that the
// value is not the other alternative's type (an array of type names):
// that leaf only confuses, so it is dropped, and the value itself is
// quoted ("integr" is not allowed; …). A leaf above another one (at /type
// when /type/0 failed) is dropped too: the deeper one says what is wrong.
func describeLeaves(ls []leaf) []string {
	p := message.NewPrinter(language.English)
	enumAt := map[string]bool{}
	for _, l := range ls {
		if _, ok := l.ve.ErrorKind.(*kind.Enum); ok {
			enumAt[l.ptr] = true
		}
	}
	above := func(ptr string) bool {
		prefix := ptr + "/"
		if ptr == "/" {
			prefix = "/"
		}
		for _, o := range ls {
			if o.ptr != ptr && strings.HasPrefix(o.ptr, prefix) {
				return true
			}
		}
		return false
	}
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		if above(l.ptr) {
			continue
		}
		switch k := l.ve.ErrorKind.(type) {
		case *kind.Type:
			if enumAt[l.ptr] {
				continue
			}
			if hint := requiredFlagHint(l.ptr, k) + itemsArrayHint(l.ptr, k); hint != "" {
				out = append(out, "at "+l.ptr+": "+l.ve.ErrorKind.LocalizedString(p)+hint)
				continue
			}
		case *kind.Enum:
			got := fmt.Sprint(k.Got)
			if s, ok := k.Got.(string); ok {
				got = strconv.Quote(s)
			}
			if len(got) > 64 {
				got = got[:61] + "..."
			}
			out = append(out, "at "+l.ptr+": "+got+" is not allowed; "+l.ve.ErrorKind.LocalizedString(p))
			continue
		}
		if m := boundMessage(l.ve.ErrorKind); m != "" {
			// The metaschema's keyword ("exclusiveMinimum: got 0, want
			// 0" for multipleOf 0) is not one the author wrote.
			out = append(out, "at "+l.ptr+": "+m)
			continue
		}
		out = append(out, "at "+l.ptr+": "+l.ve.ErrorKind.LocalizedString(p))
	}
	return out
}

// requiredFlagHint shows how JSON Schema says what `"required": true`
// inside a property (OpenAPI 2, Joi and the like) meant to: the name in the
// enclosing object's "required" array. "" for another error.
func requiredFlagHint(ptr string, k *kind.Type) string {
	parent, ok := strings.CutSuffix(ptr, "/required")
	if !ok || k.Got != "boolean" {
		return ""
	}
	i := strings.LastIndex(parent, "/")
	if i < 0 || !strings.HasSuffix(parent[:i], "/properties") {
		return ""
	}
	name := strings.ReplaceAll(strings.ReplaceAll(parent[i+1:], "~1", "/"), "~0", "~")
	q, _ := json.Marshal(name)
	return fmt.Sprintf(` (JSON Schema names required properties in the object's "required" array: "required": [%s]; in the SDKs' shorthand parameters a property is required unless it has a "default" or "optional": true)`, q)
}

// itemsArrayHint says how draft 2020-12 writes the tuple that an array
// under "items" (draft-07's form, which generators still write without a
// $schema) meant: the metaschema's "got array, want boolean or object"
// alone did not. "" for another error (a property called items, too).
func itemsArrayHint(ptr string, k *kind.Type) string {
	if kw, member := lastKeyword(ptr); kw != "items" || member || k.Got != "array" {
		return ""
	}
	return ` (an array of schemas under "items" is draft-07's tuple; draft 2020-12, the default, writes it "prefixItems" (and "items": false for no more items), or name the draft with "$schema": "http://json-schema.org/draft-07/schema#")`
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// normalizedCopy deep-copies doc and brings it to canonical form, so the
// caller's document is never modified.
func normalizedCopy(doc map[string]any) (any, error) {
	n, err := abi.Normalize(abi.Copy(doc))
	if err != nil {
		return nil, err
	}
	clampCounts(n, 0)
	return n, nil
}

// countKeywords are the keywords the reference reads as an int with
// big.Int.Int64, whose result beyond int64 is the low 64 bits (maxLength
// 1.8446744073709552e19 became 384).
var countKeywords = []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"}

// Keywords whose value is a subschema, an array of them, or a map of them.
var (
	subschemaKeywords = []string{"items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "allOf", "anyOf", "oneOf", "prefixItems"}
	subschemaMapKeywords = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)

// maxSubschemas bounds the subschemas of one schema: the reference
// looks each one up in a list of those queued before it, so compiling
// takes time that grows with the square of their number (10 000: some
// seconds; 40 000: a minute). An anyOf of 3000 object branches, each with
// a property, has 6001 (TestCostOfWideUnionLinear).
const maxSubschemas = 10_000

// countSubschemas returns n plus the number of subschemas of schema s,
// itself included, counted until it passes maxSubschemas.
func countSubschemas(s any, n, depth int) int {
	switch s.(type) {
	case map[string]any, bool:
	default:
		return n
	}
	n++
	obj, ok := s.(map[string]any)
	if !ok || depth > 512 {
		return n
	}
	for _, k := range subschemaKeywords {
		switch x := obj[k].(type) {
		case map[string]any, bool:
			n = countSubschemas(x, n, depth+1)
		case []any:
			for _, e := range x {
				if n > maxSubschemas {
					return n
				}
				n = countSubschemas(e, n, depth+1)
			}
		}
	}
	for _, k := range subschemaMapKeywords {
		if m, ok := obj[k].(map[string]any); ok {
			for _, e := range m {
				if n > maxSubschemas {
					return n
				}
				n = countSubschemas(e, n, depth+1)
			}
		}
	}
	return n
}

// clampCounts replaces, in schema s and its subschemas, a count beyond
// int64 by the largest int64: a bound no value reaches either way, so the
// verdict is the same.
func clampCounts(s any, depth int) {
	obj, ok := s.(map[string]any)
	if !ok || depth > 256 {
		return
	}
	for _, k := range countKeywords {
		switch x := obj[k].(type) {
		case uint64:
			obj[k] = int64(math.MaxInt64)
		case float64:
			if x >= 1<<63 && math.Trunc(x) == x {
				obj[k] = int64(math.MaxInt64)
			}
		}
	}
	for _, k := range subschemaKeywords {
		switch x := obj[k].(type) {
		case map[string]any:
			clampCounts(x, depth+1)
		case []any:
			for _, e := range x {
				clampCounts(e, depth+1)
			}
		}
	}
	for _, k := range subschemaMapKeywords {
		if m, ok := obj[k].(map[string]any); ok {
			for _, e := range m {
				clampCounts(e, depth+1)
			}
		}
	}
}

// schemaBase is the base URI of every schema without an $id of its own.
// It is hierarchical so that a relative $ref to another document
// ("common.json") resolves to another URI (schemaBase+"common.json"),
// which the loader refuses; against an opaque base such as a URN it
// resolved to the schema itself.
const schemaBase = "aios-schema:///"

// refusingLoader refuses every external resource: a tool's schema must be
// self-contained, and loading files or URLs on its behalf would let a
// provider read the host's files.
type refusingLoader struct{}

func (refusingLoader) Load(u string) (any, error) {
	if rel, ok := strings.CutPrefix(u, schemaBase); ok {
		return nil, fmt.Errorf("external schema %q (a document beside the schema) refused: schemas must be self-contained (use $defs and local $ref)", rel)
	}
	return nil, fmt.Errorf("external schema %q refused: schemas must be self-contained (use $defs and local $ref)", u)
}

// falseMessage words a failure of the false schema at schema pointer ptr
// (a URL fragment: "/unevaluatedProperties", "/properties/x") for the
// value at inst: it names the member or item and the keyword that refused
// it. The reference says only "false schema".
func falseMessage(ptr string, inst []string) string {
	kw, parent := lastKeyword(ptr)
	last := ""
	if len(inst) > 0 {
		last = inst[len(inst)-1]
	}
	switch {
	case kw == "unevaluatedProperties":
		return fmt.Sprintf("property %q not allowed (unevaluatedProperties is false, and no properties, patternProperties or additionalProperties of the schema or of a subschema applied to the object declares it)", last)
	case kw == "unevaluatedItems":
		return fmt.Sprintf("item %s not allowed (unevaluatedItems is false, and no prefixItems, items or contains of the schema or of a subschema applied to the array covers it)", last)
	case kw == "items" && !parent:
		return itemsFalseMessage(last)
	case kw == "properties":
		return propertyFalseMessage(last)
	case kw == "prefixItems" || kw == "items":
		return fmt.Sprintf("item %s not allowed (its schema in %s is false)", last, kw)
	case kw == "patternProperties":
		return fmt.Sprintf("property %q not allowed (a patternProperties schema it matches is false)", last)
	}
	if ptr == "" {
		ptr = "/"
	}
	return fmt.Sprintf("value not allowed here (the schema at %s is false)", ptr)
}

// lastKeyword returns the keyword of the last subschema on schema pointer
// ptr, and whether it is a member of that keyword's map or array
// (/properties/a: "properties", true; /items: "items", false).
func lastKeyword(ptr string) (kw string, member bool) {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i := 0; i < len(toks); i++ {
		kw, member = toks[i], false
		multi := slices.Contains(subschemaMapKeywords, kw) || kw == "allOf" || kw == "anyOf" || kw == "oneOf" || kw == "prefixItems"
		if kw == "items" && i+1 < len(toks) && toks[i+1] != "" && strings.Trim(toks[i+1], "0123456789") == "" {
			multi = true // draft-07 items array
		}
		if multi && i+1 < len(toks) {
			member = true
			i++
		}
	}
	return kw, member
}

// conditionNote names, for a failure of a keyword under a then or an else
// (schema pointer ptr), the if that applied it: `missing required property "y"`
// alone does not say that y is required only because the value matched
// the if. "" elsewhere.
func conditionNote(ptr string) string {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	note := ""
	for i := 0; i < len(toks); i++ {
		kw := toks[i]
		if kw == "then" || kw == "else" {
			at := "/" + strings.Join(toks[:i], "/")
			verb := "matches"
			if kw == "else" {
				verb = "does not match"
			}
			note = fmt.Sprintf(" (by %s, as the value %s %s)", strings.TrimSuffix(at, "/")+"/"+kw, verb, strings.TrimSuffix(at, "/")+"/if")
		}
		if (kw == "dependentSchemas" || kw == "dependencies") && i+1 < len(toks) {
			// The schema applies only because the object has that
			// property, as dependentRequired's failures say.
			name := strings.ReplaceAll(strings.ReplaceAll(toks[i+1], "~1", "/"), "~0", "~")
			note = fmt.Sprintf(" (by %s, as %q is present)", "/"+strings.Join(toks[:i+2], "/"), name)
		}
		multi := slices.Contains(subschemaMapKeywords, kw) || kw == "allOf" || kw == "anyOf" || kw == "oneOf" || kw == "prefixItems"
		if multi {
			i++
		}
	}
	return note
}

// propertyFalseMessage and itemsFalseMessage word the false schema of
// properties/name and of items (after prefixItems), on both paths.
func propertyFalseMessage(name string) string {
	return fmt.Sprintf("property %q not allowed (its schema in properties is false)", name)
}

func itemsFalseMessage(index string) string {
	return fmt.Sprintf("item %s not allowed (items is false: the array takes at most %s items)", index, index)
}

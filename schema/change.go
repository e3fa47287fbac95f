package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Direction says which way values flow through a schema, which decides
// whether a change breaks callers: a Params schema checks what callers
// send, so narrowing it (accepting fewer values) breaks them; a Returns
// schema describes what callers receive, so widening it (allowing values
// they did not expect) breaks them.
type Direction int

const (
	// Params is a tool's parameters schema (callers send its values).
	Params Direction = iota
	// Returns is a tool's result schema (callers receive its values).
	Returns
)

func (d Direction) String() string {
	if d == Returns {
		return "returns"
	}
	return "parameters"
}

// ChangeKind names one kind of schema change.
type ChangeKind string

// The kinds of change Diff reports.
const (
	PropertyAdded   ChangeKind = "property-added"
	PropertyRemoved ChangeKind = "property-removed"
	RequiredAdded   ChangeKind = "required-added"
	RequiredRemoved ChangeKind = "required-removed"
	TypeNarrowed    ChangeKind = "type-narrowed"
	TypeWidened     ChangeKind = "type-widened"
	TypeChanged     ChangeKind = "type-changed"
	EnumAdded       ChangeKind = "enum-added" // the enum keyword appeared
	EnumRemoved     ChangeKind = "enum-removed"
	EnumValuesAdded ChangeKind = "enum-values-added"
	EnumValuesRemov ChangeKind = "enum-values-removed"
	ConstAdded      ChangeKind = "const-added"
	ConstRemoved    ChangeKind = "const-removed"
	ConstChanged    ChangeKind = "const-changed"
	// AdditionalPropertiesTightened/Loosened: additionalProperties became
	// stricter (true → a schema → false) or laxer.
	AdditionalPropertiesTightened ChangeKind = "additional-properties-tightened"
	AdditionalPropertiesLoosened  ChangeKind = "additional-properties-loosened"
	// BoundTightened/Loosened: a numeric, string, array or object bound
	// (minimum, maxLength, minItems, multipleOf, uniqueItems, …; the path
	// ends with the keyword) accepts fewer or more values.
	BoundTightened ChangeKind = "bound-tightened"
	BoundLoosened  ChangeKind = "bound-loosened"
	BoundChanged   ChangeKind = "bound-changed" // neither contains the other (multipleOf 2 → 3)
	// PatternAdded/Removed/Changed: pattern or format.
	PatternAdded   ChangeKind = "pattern-added"
	PatternRemoved ChangeKind = "pattern-removed"
	PatternChanged ChangeKind = "pattern-changed"
	// SchemaTightened/Loosened: a whole subschema became stricter or laxer
	// (true → {…} → false), e.g. at /items or a property.
	SchemaTightened ChangeKind = "schema-tightened"
	SchemaLoosened  ChangeKind = "schema-loosened"
	// ItemsChanged: items (or a draft-04 tuple form) changed in a way not
	// compared item by item.
	ItemsChanged ChangeKind = "items-changed"
	// Unknown: a construct Diff does not reason about ($ref, oneOf, anyOf,
	// allOf, if/then/else, not, patternProperties, prefixItems, …, or a
	// malformed value) changed; treated as breaking.
	Unknown ChangeKind = "unknown"
)

// Change is one difference between two schemas.
type Change struct {
	// Path is a JSON pointer into the new schema (the old one for what
	// was removed): "/properties/name", "/items/properties/id/maximum".
	Path string     `json:"path"`
	Kind ChangeKind `json:"kind"`
	// Breaking: callers written for the old schema may fail against the
	// new one (see Direction). Unknown changes are breaking.
	Breaking bool `json:"breaking"`
	Old      any  `json:"old,omitempty"`
	New      any  `json:"new,omitempty"`
}

func (c Change) String() string {
	var b strings.Builder
	p := c.Path
	if p == "" {
		p = "/"
	}
	b.WriteString(p)
	b.WriteString(": ")
	b.WriteString(string(c.Kind))
	if c.Old != nil || c.New != nil {
		fmt.Fprintf(&b, " (%s → %s)", brief(c.Old), brief(c.New))
	}
	if c.Breaking {
		b.WriteString(" [breaking]")
	}
	return b.String()
}

// brief renders v as short JSON for messages.
func brief(v any) string {
	if v == nil {
		return "none"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// effect is how a change moves the set of values a schema accepts.
type effect int

const (
	narrows effect = iota // accepts fewer values
	widens                // accepts more values
	unknown               // neither, or not known
)

// maxDiffDepth bounds recursion into nested subschemas; deeper differences
// are reported as Unknown.
const maxDiffDepth = 64

// Diff compares two JSON Schemas (as decoded from JSON: maps, slices,
// strings, numbers, booleans; nil is an absent schema, which accepts
// anything) and lists what changed from old to new, sorted by path, each
// marked breaking or not for callers as d says. It never panics, whatever
// the input; a value it cannot interpret that differs is an Unknown change.
//
// It understands type, properties, required, additionalProperties, items
// (one schema), enum, const, the numeric, string, array and object bounds,
// multipleOf, uniqueItems, pattern and format, and boolean schemas.
// Annotations (title, description, default, examples, …) and keywords no
// validator knows are ignored. Other validation keywords ($ref, oneOf,
// anyOf, allOf, if/then/else, not, patternProperties, prefixItems, …) that
// differ are one Unknown change each.
//
// Two conventions keep ordinary evolution non-breaking: adding an optional
// property is never breaking (strictly, a parameters schema that allowed
// any extra property narrows), and for a Returns schema a removed property
// is always breaking (callers may read it).
func Diff(old, new any, d Direction) []Change {
	w := &schemaDiffer{dir: d}
	w.schema("", plain(old), plain(new), 0)
	sort.SliceStable(w.out, func(i, j int) bool { return w.out[i].Path < w.out[j].Path })
	return w.out
}

// plain returns v as encoding/json decodes it (numbers as json.Number), so
// that Go values such as []string or int compare like their JSON; v itself
// when it does not marshal.
func plain(v any) any {
	if v == nil {
		return nil
	}
	if m, ok := v.(map[string]any); ok && m == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return v
	}
	return out
}

// Breaking reports whether any change is breaking.
func Breaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Breaking })
}

type schemaDiffer struct {
	dir Direction
	out []Change
}

func (w *schemaDiffer) add(path string, kind ChangeKind, e effect, old, new any) {
	br := e == unknown || (e == narrows && w.dir == Params) || (e == widens && w.dir == Returns)
	w.out = append(w.out, Change{Path: path, Kind: kind, Breaking: br, Old: old, New: new})
}

// addBreaking records a change that breaks callers whatever its effect.
func (w *schemaDiffer) addBreaking(path string, kind ChangeKind, old, new any) {
	w.out = append(w.out, Change{Path: path, Kind: kind, Breaking: true, Old: old, New: new})
}

// boolSchema reports whether s is a boolean schema (absent and {} are
// true: they accept anything).
func boolSchema(s any) (v, ok bool) {
	switch x := s.(type) {
	case nil:
		return true, true
	case bool:
		return x, true
	case map[string]any:
		if len(x) == 0 {
			return true, true
		}
	}
	return false, false
}

// schema compares two subschemas at path. tight and loose are the kinds
// reported when a whole subschema becomes stricter or laxer.
func (w *schemaDiffer) schema(path string, old, new any, depth int) {
	w.schemaKinds(path, old, new, depth, SchemaTightened, SchemaLoosened)
}

func (w *schemaDiffer) schemaKinds(path string, old, new any, depth int, tight, loose ChangeKind) {
	ob, oBool := boolSchema(old)
	nb, nBool := boolSchema(new)
	if oBool && nBool {
		if ob && !nb {
			w.add(path, tight, narrows, ob, nb)
		} else if !ob && nb {
			w.add(path, loose, widens, ob, nb)
		}
		return
	}
	// true is {}: compared keyword by keyword with the other side. false
	// accepts nothing, so anything else is laxer.
	_, oMap := old.(map[string]any)
	_, nMap := new.(map[string]any)
	switch {
	case oBool && ob:
		old = map[string]any{}
	case oBool && nMap:
		w.add(path, loose, widens, false, nil)
		return
	case nBool && nb:
		new = map[string]any{}
	case nBool && oMap:
		w.add(path, tight, narrows, nil, false)
		return
	}
	om, ok1 := old.(map[string]any)
	nm, ok2 := new.(map[string]any)
	if !ok1 || !ok2 {
		// Not schemas (a number, a string, an array): compare as values.
		if !jsonEqual(old, new) {
			w.add(path, Unknown, unknown, old, new)
		}
		return
	}
	if depth >= maxDiffDepth {
		if !jsonEqual(old, new) {
			w.add(path, Unknown, unknown, nil, nil)
		}
		return
	}
	w.object(path, om, nm, depth)
}

// Keywords Diff does not analyse. Annotations (title, description, …) and
// keywords no validator knows are ignored.
var (
	// notUnderstood are validation keywords (of any draft) whose changes
	// Diff does not analyse: a difference is one Unknown change.
	notUnderstood = map[string]bool{
		"$ref": true, "$dynamicRef": true, "$recursiveRef": true, "$defs": true, "definitions": true,
		"$id": true, "id": true, "$anchor": true, "$dynamicAnchor": true, "$recursiveAnchor": true,
		"$schema": true, "$vocabulary": true,
		"allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true,
		"patternProperties": true, "propertyNames": true, "dependentRequired": true,
		"dependentSchemas": true, "dependencies": true, "unevaluatedProperties": true,
		"unevaluatedItems": true, "prefixItems": true, "additionalItems": true, "contains": true,
		"minContains": true, "maxContains": true,
	}
)

// lowerBounds accept fewer values as they grow; upperBounds as they shrink.
var (
	lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"}
	upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"}
)

// countBound are the lower bounds on a count (of characters, items,
// properties): 0 bounds nothing.
var countBound = map[string]bool{"minLength": true, "minItems": true, "minProperties": true}

// zeroAsAbsent is nil for a bound of 0, v otherwise.
func zeroAsAbsent(v any) any {
	if r, ok := toRat(v); ok && r.Sign() == 0 {
		return nil
	}
	return v
}

func (w *schemaDiffer) object(path string, om, nm map[string]any, depth int) {
	ts := len(w.out)
	w.types(path, om["type"], nm["type"])
	typeSpan := [2]int{ts, len(w.out)}
	w.properties(path, om, nm, depth)
	w.required(path, om["required"], nm["required"])
	if !jsonEqual(om["additionalProperties"], nm["additionalProperties"]) {
		w.schemaKinds(path+"/additionalProperties", om["additionalProperties"], nm["additionalProperties"], depth+1,
			AdditionalPropertiesTightened, AdditionalPropertiesLoosened)
	}
	w.items(path, om["items"], nm["items"], depth)
	vs := len(w.out)
	w.values(path, om, nm)
	w.judgeValues(om, nm, typeSpan, [2]int{vs, len(w.out)})
	for _, k := range lowerBounds {
		o, n := om[k], nm[k]
		if countBound[k] {
			// A count's lower bound of 0 is what its absence means.
			o, n = zeroAsAbsent(o), zeroAsAbsent(n)
		}
		w.bound(path+"/"+k, o, n, false)
	}
	for _, k := range upperBounds {
		w.bound(path+"/"+k, om[k], nm[k], true)
	}
	w.multipleOf(path+"/multipleOf", om["multipleOf"], nm["multipleOf"])
	w.uniqueItems(path+"/uniqueItems", om["uniqueItems"], nm["uniqueItems"])
	for _, k := range []string{"pattern", "format"} {
		w.pattern(path+"/"+k, om[k], nm[k])
	}
	// Everything else: keywords not understood that differ.
	keys := make([]string, 0, len(om)+len(nm))
	for k := range om {
		keys = append(keys, k)
	}
	for k := range nm {
		if _, ok := om[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !notUnderstood[k] {
			continue // handled above, an annotation, or no validator's keyword
		}
		if !jsonEqual(om[k], nm[k]) {
			w.add(path+"/"+escape(k), Unknown, unknown, om[k], nm[k])
		}
	}
}

// allTypes are the JSON Schema types; integer is a subset of number.
var allTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// typeSet reads a type keyword: nil (absent) is every type. ok is false
// for a malformed value.
func typeSet(v any) (set map[string]bool, ok bool) {
	set = map[string]bool{}
	switch x := v.(type) {
	case nil:
		for _, t := range allTypes {
			set[t] = true
		}
	case string:
		if !slices.Contains(allTypes, x) {
			return nil, false
		}
		set[x] = true
	case []any:
		for _, e := range x {
			s, isStr := e.(string)
			if !isStr || !slices.Contains(allTypes, s) {
				return nil, false
			}
			set[s] = true
		}
	default:
		return nil, false
	}
	if set["number"] {
		set["integer"] = true
	}
	return set, true
}

// subset reports whether every type of a is in b.
func subset(a, b map[string]bool) bool {
	for t := range a {
		if !b[t] {
			return false
		}
	}
	return true
}

func (w *schemaDiffer) types(path string, old, new any) {
	if jsonEqual(old, new) {
		return
	}
	p := path + "/type"
	os, ok1 := typeSet(old)
	ns, ok2 := typeSet(new)
	switch {
	case !ok1 || !ok2:
		w.add(p, Unknown, unknown, old, new)
	case subset(os, ns) && subset(ns, os):
		// Same set, spelled differently (["number","integer"] vs "number").
	case subset(ns, os):
		w.add(p, TypeNarrowed, narrows, old, new)
	case subset(os, ns):
		w.add(p, TypeWidened, widens, old, new)
	default:
		w.add(p, TypeChanged, unknown, old, new)
	}
}

func (w *schemaDiffer) properties(path string, om, nm map[string]any, depth int) {
	oldProps, ok1 := om["properties"].(map[string]any)
	newProps, ok2 := nm["properties"].(map[string]any)
	if (!ok1 && om["properties"] != nil) || (!ok2 && nm["properties"] != nil) {
		if !jsonEqual(om["properties"], nm["properties"]) {
			w.add(path+"/properties", Unknown, unknown, om["properties"], nm["properties"])
		}
		return
	}
	names := make([]string, 0, len(oldProps)+len(newProps))
	for k := range oldProps {
		names = append(names, k)
	}
	for k := range newProps {
		if _, ok := oldProps[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p := path + "/properties/" + escape(name)
		o, inOld := oldProps[name]
		n, inNew := newProps[name]
		switch {
		case inOld && inNew:
			w.schema(p, o, n, depth+1)
		case inNew:
			// Optional additions are compatible by convention (see Diff);
			// a required one is also reported as RequiredAdded. But a name
			// that the old schema's additionalProperties or
			// patternProperties governed with a schema was accepted with
			// the values that schema allowed: the new property's schema
			// may refuse them, which this diff does not compare.
			if w.dir == Params && governed(name, om) {
				w.add(p, PropertyAdded, unknown, nil, nil)
			} else {
				w.out = append(w.out, Change{Path: p, Kind: PropertyAdded})
			}
		default:
			w.propertyRemoved(p, nm["additionalProperties"])
		}
	}
}

// governed reports whether the object schema m constrained a property
// name it did not list with a schema of its own: a patternProperties
// pattern that matches the name (or does not compile here), or an
// additionalProperties that is a schema rather than true or false.
func governed(name string, m map[string]any) bool {
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for pat := range pp {
			re, err := regexp.Compile(pat)
			if err != nil || re.MatchString(name) {
				return true
			}
		}
	} else if m["patternProperties"] != nil {
		return true
	}
	if ap, ok := m["additionalProperties"]; ok {
		if _, isBool := boolSchema(ap); !isBool {
			return true
		}
	}
	return false
}

// propertyRemoved reports a property the new schema no longer lists.
func (w *schemaDiffer) propertyRemoved(p string, additional any) {
	if w.dir == Returns {
		w.addBreaking(p, PropertyRemoved, nil, nil) // callers may read it
		return
	}
	switch b, ok := boolSchema(additional); {
	case ok && b:
		w.add(p, PropertyRemoved, widens, nil, nil) // now any value
	case ok:
		w.add(p, PropertyRemoved, narrows, nil, nil) // now refused
	default:
		w.add(p, PropertyRemoved, unknown, nil, nil) // now checked by additionalProperties
	}
}

// stringSet reads a required list; ok is false when it is malformed.
func stringSet(v any) (map[string]bool, bool) {
	set := map[string]bool{}
	if v == nil {
		return set, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		set[s] = true
	}
	return set, true
}

func (w *schemaDiffer) required(path string, old, new any) {
	if jsonEqual(old, new) {
		return
	}
	os, ok1 := stringSet(old)
	ns, ok2 := stringSet(new)
	if !ok1 || !ok2 {
		w.add(path+"/required", Unknown, unknown, old, new)
		return
	}
	for _, name := range sortedKeys(ns) {
		if !os[name] {
			w.add(path+"/properties/"+escape(name), RequiredAdded, narrows, nil, nil)
		}
	}
	for _, name := range sortedKeys(os) {
		if !ns[name] {
			w.add(path+"/properties/"+escape(name), RequiredRemoved, widens, nil, nil)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (w *schemaDiffer) items(path string, old, new any, depth int) {
	if jsonEqual(old, new) {
		return
	}
	p := path + "/items"
	_, oldList := old.([]any)
	_, newList := new.([]any)
	if oldList || newList {
		w.add(p, ItemsChanged, unknown, nil, nil) // draft-04 tuples
		return
	}
	w.schema(p, old, new, depth+1)
}

func (w *schemaDiffer) enum(path string, old, new any) {
	if jsonEqual(old, new) {
		return
	}
	p := path + "/enum"
	ol, ok1 := old.([]any)
	nl, ok2 := new.([]any)
	switch {
	case (!ok1 && old != nil) || (!ok2 && new != nil):
		w.add(p, Unknown, unknown, old, new)
	case old == nil:
		w.add(p, EnumAdded, narrows, nil, new)
	case new == nil:
		w.add(p, EnumRemoved, widens, old, nil)
	default:
		oset := make(map[string]bool, len(ol))
		for _, v := range ol {
			oset[canon(v)] = true
		}
		nset := make(map[string]bool, len(nl))
		for _, v := range nl {
			nset[canon(v)] = true
		}
		var added, removed []any
		for _, v := range nl {
			if k := canon(v); !oset[k] {
				oset[k] = true // once
				added = append(added, v)
			}
		}
		for _, v := range ol {
			if k := canon(v); !nset[k] {
				nset[k] = true
				removed = append(removed, v)
			}
		}
		if len(removed) > 0 {
			w.add(p, EnumValuesRemov, narrows, removed, nil)
		}
		if len(added) > 0 {
			w.add(p, EnumValuesAdded, widens, nil, added)
		}
	}
}

// values compares enum and const.
func (w *schemaDiffer) values(path string, om, nm map[string]any) {
	w.enum(path, om["enum"], nm["enum"])
	w.constant(path, om, nm)
}

// judgeValues sets whether the changes in spans (of w.out: those of type,
// enum and const) break callers by the values om and nm allow together,
// when either has an enum or a const. The keywords say together which
// values a schema allows, and judged one by one they misled: const "a" →
// enum ["a"] broke callers both ways, enum ["a","b"] → const "a" broke a
// result's callers, and dropping a type beside an enum of its values
// ({"type":"string","enum":["a"]} → {"enum":["a"]}) was a widened type.
// A keyword it cannot read keeps the verdicts of each change.
func (w *schemaDiffer) judgeValues(om, nm map[string]any, spans ...[2]int) {
	os, ot, ok1 := allowedValues(om)
	ns, nt, ok2 := allowedValues(nm)
	if !ok1 || !ok2 || (os == nil && ns == nil) {
		return
	}
	var narrower, wider bool
	switch {
	case os == nil: // any value of its types before
		narrower = valuesOf(ns, ot)
	case ns == nil:
		wider = valuesOf(os, nt)
	default:
		narrower, wider = keysIn(ns, os), keysIn(os, ns)
	}
	br := !narrower && !wider || // neither holds the other's values
		narrower && !wider && w.dir == Params || wider && !narrower && w.dir == Returns
	for _, sp := range spans {
		for i := sp[0]; i < sp[1]; i++ {
			w.out[i].Breaking = br
		}
	}
}

// allowedValues reads what m allows: with an enum or a const the values
// (by canon) that they and its type allow, else nil; types is its type
// keyword's set. ok is false when type or enum is malformed.
func allowedValues(m map[string]any) (set map[string]any, types map[string]bool, ok bool) {
	if types, ok = typeSet(m["type"]); !ok {
		return nil, nil, false
	}
	var vals []any
	en := m["enum"]
	if en != nil {
		l, isList := en.([]any)
		if !isList {
			return nil, nil, false
		}
		vals = l
	}
	if c, hasConst := m["const"]; hasConst {
		if en != nil && !slices.ContainsFunc(vals, func(v any) bool { return jsonEqual(v, c) }) {
			vals = nil
		} else {
			vals = []any{c}
		}
	} else if en == nil {
		return nil, types, true
	}
	set = make(map[string]any, len(vals))
	for _, v := range vals {
		if valueOf(v, types) {
			set[canon(v)] = v
		}
	}
	return set, types, true
}

// valuesOf reports whether every value of set is of one of types (a JSON
// type set, as typeSet reads it).
func valuesOf(set map[string]any, types map[string]bool) bool {
	for _, v := range set {
		if !valueOf(v, types) {
			return false
		}
	}
	return true
}

// valueOf reports whether the JSON value v is of one of types.
func valueOf(v any, types map[string]bool) bool {
	switch v.(type) {
	case nil:
		return types["null"]
	case bool:
		return types["boolean"]
	case string:
		return types["string"]
	case []any:
		return types["array"]
	case map[string]any:
		return types["object"]
	}
	r, ok := toRat(v)
	if !ok {
		return false
	}
	if r.IsInt() {
		return types["integer"] // (typeSet puts integer in every set with number)
	}
	return types["number"]
}

// keysIn reports whether every key of a is in b.
func keysIn(a, b map[string]any) bool {
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

func (w *schemaDiffer) constant(path string, om, nm map[string]any) {
	o, inOld := om["const"]
	n, inNew := nm["const"]
	p := path + "/const"
	switch {
	case inOld && inNew:
		if !jsonEqual(o, n) {
			w.add(p, ConstChanged, unknown, o, n)
		}
	case inNew:
		w.add(p, ConstAdded, narrows, nil, n)
	case inOld:
		w.add(p, ConstRemoved, widens, o, nil)
	}
}

// bound compares a numeric bound; upper is true for maximum-like keywords.
func (w *schemaDiffer) bound(p string, old, new any, upper bool) {
	if jsonEqual(old, new) {
		return
	}
	switch {
	case new == nil:
		w.add(p, BoundLoosened, widens, old, nil)
		return
	case old == nil:
		w.add(p, BoundTightened, narrows, nil, new)
		return
	}
	o, ok1 := toRat(old)
	n, ok2 := toRat(new)
	if !ok1 || !ok2 {
		// Draft-04 boolean exclusiveMinimum, a string, …
		w.add(p, Unknown, unknown, old, new)
		return
	}
	c := n.Cmp(o)
	if upper {
		c = -c
	}
	switch {
	case c > 0:
		w.add(p, BoundTightened, narrows, old, new)
	case c < 0:
		w.add(p, BoundLoosened, widens, old, new)
	}
}

func (w *schemaDiffer) multipleOf(p string, old, new any) {
	if jsonEqual(old, new) {
		return
	}
	switch {
	case new == nil:
		w.add(p, BoundLoosened, widens, old, nil)
		return
	case old == nil:
		w.add(p, BoundTightened, narrows, nil, new)
		return
	}
	o, ok1 := toRat(old)
	n, ok2 := toRat(new)
	if !ok1 || !ok2 || o.Sign() <= 0 || n.Sign() <= 0 {
		w.add(p, Unknown, unknown, old, new)
		return
	}
	switch {
	case new2(n, o).IsInt(): // every multiple of new is one of old
		w.add(p, BoundTightened, narrows, old, new)
	case new2(o, n).IsInt():
		w.add(p, BoundLoosened, widens, old, new)
	default:
		w.add(p, BoundChanged, unknown, old, new)
	}
}

// new2 is a/b.
func new2(a, b *big.Rat) *big.Rat { return new(big.Rat).Quo(a, b) }

func (w *schemaDiffer) uniqueItems(p string, old, new any) {
	if jsonEqual(old, new) {
		return
	}
	ob, ok1 := old.(bool)
	nb, ok2 := new.(bool)
	if (!ok1 && old != nil) || (!ok2 && new != nil) {
		w.add(p, Unknown, unknown, old, new)
		return
	}
	switch {
	case !ob && nb:
		w.add(p, BoundTightened, narrows, old, new)
	case ob && !nb:
		w.add(p, BoundLoosened, widens, old, new)
	}
}

func (w *schemaDiffer) pattern(p string, old, new any) {
	if jsonEqual(old, new) {
		return
	}
	switch {
	case old == nil:
		w.add(p, PatternAdded, narrows, nil, new)
	case new == nil:
		w.add(p, PatternRemoved, widens, old, nil)
	default:
		w.add(p, PatternChanged, unknown, old, new)
	}
}

// escape escapes a JSON pointer token (RFC 6901).
func escape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// toRat reads a JSON number of any Go representation; ok is false for
// anything else (and for NaN and infinities).
func toRat(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(x), true
	case float32:
		return toRat(float64(x))
	case int:
		return new(big.Rat).SetInt64(int64(x)), true
	case int8:
		return new(big.Rat).SetInt64(int64(x)), true
	case int16:
		return new(big.Rat).SetInt64(int64(x)), true
	case int32:
		return new(big.Rat).SetInt64(int64(x)), true
	case int64:
		return new(big.Rat).SetInt64(x), true
	case uint:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint8:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint16:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint32:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint64:
		return new(big.Rat).SetUint64(x), true
	case json.Number:
		if !strings.ContainsAny(string(x), "eE") && len(x) <= 400 {
			if r, ok := new(big.Rat).SetString(string(x)); ok {
				return r, true
			}
		}
		// An exponent: through float64, so that 1e999999999 cannot make
		// big.Rat compute a number of a billion digits.
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, false
		}
		return toRat(f)
	}
	return nil, false
}

// jsonEqual compares two JSON values as JSON Schema does (1 equals 1.0).
func jsonEqual(a, b any) bool {
	if reflect.TypeOf(a) == reflect.TypeOf(b) {
		switch a.(type) {
		case string, bool, nil:
			return a == b
		}
	}
	return canon(a) == canon(b)
}

// canon renders a JSON value canonically: numbers as exact rationals,
// object keys sorted.
func canon(v any) string {
	var b strings.Builder
	writeCanon(&b, v, 0)
	return b.String()
}

func writeCanon(b *strings.Builder, v any, depth int) {
	if depth > 10000 {
		b.WriteString("…")
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		b.WriteString(strconv.Quote(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanon(b, e, depth+1)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeCanon(b, x[k], depth+1)
		}
		b.WriteByte('}')
	default:
		if r, ok := toRat(v); ok {
			b.WriteString("#")
			b.WriteString(r.RatString())
			return
		}
		fmt.Fprintf(b, "?%T:%v", v, v)
	}
}

package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validation cost
//
// The reference compiles every subschema once, but validates a value
// against each path of applicators that reaches it: allOf, anyOf, oneOf,
// not, if/then/else, $ref and dependentSchemas apply their subschemas to
// the same value, so a chain of $defs each of which applies the next twice
// ({"allOf": [{"$ref": "#/$defs/a1"}, {"$ref": "#/$defs/a1"}]}) makes 2^n
// evaluations of one value from a schema of n small definitions. Such a
// schema compiled (and hung its own compilation's reference-cycle check),
// and every call then held a core for hours before the provider was asked,
// outside any deadline. A schema is refused when the evaluations one value
// node can receive exceed maxEvaluations, computed from the compiled graph
// before anything is validated.

// maxEvaluations bounds the schema evaluations one node of a value may
// cost (a WIT variant of 300 cases is a few thousand; the 2020-12
// metaschema under a property a few dozen).
const maxEvaluations = 100_000

// maxCostDepth is the deepest value the cost is computed for: values are
// nested at most 512 levels (abi).
const maxCostDepth = 520

type costNode struct {
	s *jsonschema.Schema
	// inplace subschemas apply to the same value, each in turn; alts are
	// groups of which one applies (then or else; the schemas a
	// $dynamicRef or $recursiveRef may resolve to).
	inplace []int
	alts    [][]int
	// Subschemas applied to a child of the value: for a member, the
	// property of its name and every pattern it matches, or else addl
	// (plus unevaluatedProperties, in objSum); for an item, one of items
	// (plus contains, unevaluatedItems).
	names         []string
	props, objSum []int
	patterns      []int
	addl          int // -1: none
	items, arrSum []int
	keys          []int // propertyNames: applied to each key, a string
	content       []int // contentSchema: applied to the decoded string
}

// costGraph is the compiled schema as a graph of costNodes.
type costGraph struct {
	nodes []costNode
	index map[*jsonschema.Schema]int
}

func (g *costGraph) add(s *jsonschema.Schema) int {
	if i, ok := g.index[s]; ok {
		return i
	}
	i := len(g.nodes)
	g.index[s] = i
	g.nodes = append(g.nodes, costNode{s: s, addl: -1})
	return i
}

// checkCost returns an error naming the schema location where validating
// one value could take more than maxEvaluations evaluations, or where
// subschemas apply each other to the same value in a cycle; nil otherwise.
// loc is the schema's URL, left out of the locations named.
// The graph is returned for what else reads it (uniqueOnCycle).
func checkCost(root *jsonschema.Schema, loc string) (*costGraph, error) {
	g := newCostGraph(root)
	order, err := g.inplaceOrder(loc)
	if err != nil {
		return nil, err
	}
	return g, g.checkLevels(order, loc)
}

// newCostGraph builds the graph of the compiled schema root.
func newCostGraph(root *jsonschema.Schema) *costGraph {
	g := &costGraph{index: map[*jsonschema.Schema]int{}}
	g.add(root)
	// Dynamic targets are resolved against the whole graph once it is
	// known: every schema with the anchor may be the one that applies.
	type dynRef struct {
		from   int
		target *jsonschema.Schema
		anchor string // "" for $recursiveRef
	}
	var dyn []dynRef
	for i := 0; i < len(g.nodes); i++ {
		s := g.nodes[i].s
		if s.Bool != nil {
			continue
		}
		one := func(c *jsonschema.Schema) []int {
			if c == nil {
				return nil
			}
			return []int{g.add(c)}
		}
		many := func(cs []*jsonschema.Schema) []int {
			var out []int
			for _, c := range cs {
				out = append(out, g.add(c))
			}
			return out
		}
		var n costNode
		n.s = s
		n.inplace = append(n.inplace, one(s.Ref)...)
		n.inplace = append(n.inplace, one(s.Not)...)
		n.inplace = append(n.inplace, many(s.AllOf)...)
		n.inplace = append(n.inplace, many(s.AnyOf)...)
		n.inplace = append(n.inplace, many(s.OneOf)...)
		n.inplace = append(n.inplace, one(s.If)...)
		if s.If != nil { // then or else applies, not both
			if branches := append(one(s.Then), one(s.Else)...); len(branches) > 0 {
				n.alts = append(n.alts, branches)
			}
		}
		for _, k := range sortedKeys(s.DependentSchemas) {
			n.inplace = append(n.inplace, g.add(s.DependentSchemas[k]))
		}
		for _, k := range sortedKeys(s.Dependencies) {
			if c, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
				n.inplace = append(n.inplace, g.add(c))
			}
		}
		if s.RecursiveRef != nil {
			g.add(s.RecursiveRef)
			dyn = append(dyn, dynRef{i, s.RecursiveRef, ""})
		}
		if d := s.DynamicRef; d != nil && d.Ref != nil {
			g.add(d.Ref)
			dyn = append(dyn, dynRef{i, d.Ref, d.Anchor})
		}
		for _, k := range sortedKeys(s.Properties) {
			n.names = append(n.names, k)
			n.props = append(n.props, g.add(s.Properties[k]))
		}
		n.addl = -1
		if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			n.addl = g.add(a)
		}
		for _, c := range s.PatternProperties {
			n.patterns = append(n.patterns, g.add(c))
		}
		n.objSum = append(n.objSum, one(s.UnevaluatedProperties)...)
		n.keys = one(s.PropertyNames)
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			n.items = append(n.items, g.add(it))
		case []*jsonschema.Schema:
			n.items = append(n.items, many(it)...)
		}
		if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			n.items = append(n.items, g.add(a))
		}
		n.items = append(n.items, many(s.PrefixItems)...)
		n.items = append(n.items, one(s.Items2020)...)
		n.arrSum = append(n.arrSum, one(s.Contains)...)
		n.arrSum = append(n.arrSum, one(s.UnevaluatedItems)...)
		n.content = one(s.ContentSchema)
		g.nodes[i] = n
	}
	for _, d := range dyn {
		t := g.index[d.target]
		alt := []int{t}
		switch {
		case d.anchor == "" && d.target.RecursiveAnchor:
			for j, n := range g.nodes {
				if j != t && n.s.RecursiveAnchor {
					alt = append(alt, j)
				}
			}
		case d.anchor != "" && d.target.DynamicAnchor == d.anchor:
			for j, n := range g.nodes {
				if j != t && n.s.DynamicAnchor == d.anchor {
					alt = append(alt, j)
				}
			}
		}
		g.nodes[d.from].alts = append(g.nodes[d.from].alts, alt)
	}
	return g
}

// checkLevels is checkCost's walk down the levels of a value, in-place
// children first (order).
func (g *costGraph) checkLevels(order []int, loc string) error {
	levels := [][]costs{}
	var recent [][]costs // the last levels
	prev := make([]costs, len(g.nodes))
	for d := 0; d <= maxCostDepth; d++ {
		cur := make([]costs, len(g.nodes))
		var members [][3]keyed // a member's cost through node i, by its type
		if d > 0 {
			members = make([][3]keyed, len(g.nodes))
		}
		for _, i := range order { // in-place children first
			for t := range cur[i] {
				if d > 0 && vtype(t) == vObject {
					cur[i][t] = g.objectCost(i, prev, members)
					continue
				}
				cur[i][t] = g.cost(i, vtype(t), d, prev, cur)
			}
		}
		if len(g.nodes)*len(levels) < 1<<20 {
			levels = append(levels, cur)
		}
		if worst := cur[0].max(); worst > maxEvaluations {
			where := "/"
			if len(levels) == d+1 {
				where = g.culprit(levels, loc)
			}
			level := "the value itself"
			if d > 0 {
				level = fmt.Sprintf("a value %d levels down", d)
			}
			return fmt.Errorf("validating %s could take more than %d schema evaluations: the schema at %s applies subschemas to one value that apply others to it each more than once (allOf, anyOf, oneOf, $ref, or properties and patternProperties both matching a member), and the evaluations multiply; apply each definition to a value once",
				level, maxEvaluations, where)
		}
		// E(d) depends on E(d-1) alone: once a level repeats one of the
		// last few (an object holding arrays of objects alternates), the
		// deeper levels repeat those in between.
		if slices.ContainsFunc(recent, func(l []costs) bool { return slices.Equal(l, cur) }) {
			break
		}
		if len(recent) == 8 {
			recent = recent[1:]
		}
		recent = append(recent, cur)
		prev = cur
	}
	return nil
}

// uniqueOnCycle says whether a schema with uniqueItems can apply to a value
// nested in another it applies to (it is on a cycle of the graph, which
// descends into the value: in-place cycles are refused): the reference
// hashes each such array's whole subtree, at every level of the value.
func (g *costGraph) uniqueOnCycle() bool {
	next := func(n *costNode) []int {
		out := slices.Concat(n.inplace, n.props, n.objSum, n.patterns, n.items, n.arrSum, n.keys, n.content)
		if n.addl >= 0 {
			out = append(out, n.addl)
		}
		for _, a := range n.alts {
			out = append(out, a...)
		}
		return out
	}
	for u := range g.nodes {
		if s := g.nodes[u].s; s.Bool != nil || !s.UniqueItems {
			continue
		}
		seen := make([]bool, len(g.nodes))
		stack := next(&g.nodes[u])
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if i == u {
				return true
			}
			if !seen[i] {
				seen[i] = true
				stack = append(stack, next(&g.nodes[i])...)
			}
		}
	}
	return false
}

// vtype is the type of a value, as far as the cost depends on it: whether
// it has members, items, or neither.
type vtype int

const (
	vObject vtype = iota
	vArray
	vOther
)

// costs holds a node's cost for a value of each vtype.
type costs [3]int64

func (c costs) max() int64 { return max(c[0], c[1], c[2]) }

func sat(a, b int64) int64 { return min(a+b, maxEvaluations+1) }

// allows reports whether s's type keyword admits a value of type t (the
// reference stops at a type mismatch, applying nothing else).
func allows(s *jsonschema.Schema, t vtype) bool {
	if s.Bool != nil {
		return *s.Bool
	}
	if s.Types == nil || s.Types.IsEmpty() {
		return true
	}
	for _, n := range s.Types.ToStrings() {
		switch {
		case n == "object" && t == vObject, n == "array" && t == vArray:
			return true
		case n != "object" && n != "array" && t == vOther:
			return true
		}
	}
	return false
}

// cost returns the evaluations a value node d levels below a value of
// type t can receive when that value is validated against node i, given
// prev (level d-1) and cur (level d, for the in-place children of i).
func (g *costGraph) cost(i int, t vtype, d int, prev, cur []costs) int64 {
	n := &g.nodes[i]
	if !allows(n.s, t) {
		if d == 0 {
			return 1
		}
		return 0
	}
	var c int64
	if d == 0 {
		c = 1
	} else {
		c = g.below(n, t, d-1, prev)
	}
	for _, k := range n.inplace {
		c = sat(c, cur[k][t])
	}
	for _, alt := range n.alts {
		var m int64
		for _, k := range alt {
			m = max(m, cur[k][t])
		}
		c = sat(c, m)
	}
	return c
}

// below returns the evaluations a node k levels below a child of a value
// of type t can receive through n's subschemas that apply to that child:
// the child is of one type, for all of them.
func (g *costGraph) below(n *costNode, t vtype, k int, prev []costs) int64 {
	var best int64
	for ct := range vtype(3) {
		var c int64
		switch t {
		case vArray:
			var m int64
			for _, j := range n.items {
				m = max(m, prev[j][ct])
			}
			c = m
			for _, j := range n.arrSum {
				c = sat(c, prev[j][ct])
			}
		case vOther:
			for _, j := range n.content {
				c = sat(c, prev[j][ct])
			}
		}
		best = max(best, c)
	}
	return best
}

// culprit follows the costliest subschemas from the root down to the one
// over the limit whose parts are each within it (where the parts add up)
// and returns its location.
func (g *costGraph) culprit(levels [][]costs, loc string) string {
	i, d := 0, len(levels)-1
	t := vObject
	for ct := range vtype(3) {
		if levels[d][0][ct] > levels[d][0][t] {
			t = ct
		}
	}
	for steps := 0; steps < len(g.nodes)*len(levels); steps++ {
		n := &g.nodes[i]
		next := -1
		for _, k := range n.inplace {
			if levels[d][k][t] > maxEvaluations {
				next = k
			}
		}
		for _, alt := range n.alts {
			for _, k := range alt {
				if levels[d][k][t] > maxEvaluations {
					next = k
				}
			}
		}
		if next < 0 && d > 0 {
			var kids []int
			switch t {
			case vObject:
				kids = slices.Concat(n.props, n.patterns, n.objSum, n.keys)
				if n.addl >= 0 {
					kids = append(kids, n.addl)
				}
			case vArray:
				kids = slices.Concat(n.items, n.arrSum)
			default:
				kids = n.content
			}
			for _, k := range kids {
				for ct := range vtype(3) {
					if levels[d-1][k][ct] > maxEvaluations {
						next, t = k, ct
					}
				}
			}
			if next >= 0 {
				d--
			}
		}
		if next < 0 {
			break
		}
		i = next
	}
	w := strings.TrimPrefix(g.nodes[i].s.Location, loc+"#")
	if w == "" {
		return "/"
	}
	return w
}

// inplaceOrder returns the nodes ordered so that every node comes after
// the subschemas it applies to the same value, or an error naming a cycle
// of them (a $ref chain that comes back to itself without descending into
// the value, which never ends).
func (g *costGraph) inplaceOrder(loc string) ([]int, error) {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(g.nodes))
	order := make([]int, 0, len(g.nodes))
	type frame struct {
		i    int
		next int
	}
	children := func(i int) []int {
		n := &g.nodes[i]
		out := n.inplace
		for _, a := range n.alts {
			out = append(out[:len(out):len(out)], a...)
		}
		return out
	}
	name := func(i int) string {
		w := strings.TrimPrefix(g.nodes[i].s.Location, loc+"#")
		if w == "" {
			return "/"
		}
		return w
	}
	for start := range g.nodes {
		if color[start] != white {
			continue
		}
		stack := []frame{{start, 0}}
		color[start] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ch := children(top.i)
			if top.next == len(ch) {
				color[top.i] = black
				order = append(order, top.i)
				stack = stack[:len(stack)-1]
				continue
			}
			c := ch[top.next]
			top.next++
			switch color[c] {
			case white:
				color[c] = grey
				stack = append(stack, frame{c, 0})
			case grey:
				return nil, fmt.Errorf("reference cycle: the subschema at %s applies itself to the same value again through %s, which never ends (descend into the value, under properties or items, before referring back)", name(c), name(top.i))
			}
		}
	}
	return order, nil
}

// keyed bounds the cost of an object's member by its name: m[name], or
// def for a name m does not hold.
type keyed struct {
	def int64
	m   map[string]int64
	// shared: m is another bound's (read-only until copied).
	shared bool
	hi     int64 // the largest of def and m's values
}

// maxKeys bounds the names a keyed tracks; beyond it, every name costs
// as much as the costliest (an upper bound still).
const maxKeys = 4096

func (a keyed) get(k string) int64 {
	if v, ok := a.m[k]; ok {
		return v
	}
	return a.def
}

func (a keyed) top() int64 { return a.hi }

// merge combines b into a, name by name, with f (sat: both apply to the
// member; max: one of them does). a owns its map. Names only a holds
// are visited only when b's default changes them, so merging many small
// bounds into one stays linear.
func (a *keyed) merge(b keyed, f func(x, y int64) int64) {
	if a.m == nil && a.def == 0 {
		// f(0, v) == v for sat and max: a becomes b, sharing its
		// names (a $ref to a schema of many properties copies none).
		*a = b
		a.shared = b.m != nil
		return
	}
	if a.shared && (b.def != 0 || len(b.m) > 0) {
		a.m, a.shared = maps.Clone(a.m), false
	}
	oldDef := a.def
	hi := a.hi
	if b.def != 0 {
		for k, v := range a.m {
			if _, inB := b.m[k]; !inB {
				v = f(v, b.def)
				a.m[k] = v
				hi = max(hi, v)
			}
		}
	}
	if len(b.m) > 0 && a.m == nil {
		a.m = make(map[string]int64, len(b.m))
	}
	for k, bv := range b.m {
		av, ok := a.m[k]
		if !ok {
			av = oldDef
		}
		v := f(av, bv)
		a.m[k] = v
		hi = max(hi, v)
	}
	a.def = f(oldDef, b.def)
	a.hi = max(hi, a.def)
	if len(a.m) > maxKeys {
		*a = keyed{def: a.hi, hi: a.hi}
	}
}

// objectCost returns the evaluations a node one level or more below an
// object validated against node i can receive, and records in members[i]
// the cost of each of its members through i and what i applies to the
// object (allOf branches each declaring their own properties add up only
// for a name more than one declares).
func (g *costGraph) objectCost(i int, prev []costs, members [][3]keyed) int64 {
	n := &g.nodes[i]
	if !allows(n.s, vObject) {
		return 0
	}
	var worst int64
	for ct := range vtype(3) {
		// A member gets its property's schema and those of the patterns
		// it matches (any of them, as far as the names tell), or, when
		// none applies, additionalProperties: a schema with both
		// patternProperties and additionalProperties referring back to
		// itself applies one of them per level, not both.
		var pats int64
		for _, j := range n.patterns {
			pats = sat(pats, prev[j][ct])
		}
		own := keyed{def: pats}
		if n.addl >= 0 {
			own.def = max(pats, prev[n.addl][ct])
		}
		own.hi = own.def
		if len(n.names) > 0 {
			own.m = make(map[string]int64, len(n.names))
			for j, name := range n.names {
				v := sat(prev[n.props[j]][ct], pats)
				own.m[name] = v
				own.hi = max(own.hi, v)
			}
		}
		var all int64 // applies to every member: unevaluatedProperties, propertyNames
		for _, j := range n.objSum {
			all = sat(all, prev[j][ct])
		}
		if ct == vOther {
			for _, j := range n.keys {
				all = sat(all, prev[j][ct]) // a key is a string; its level is the member's
			}
		}
		own.merge(keyed{def: all}, sat)
		for _, k := range n.inplace {
			own.merge(members[k][ct], sat)
		}
		for _, alt := range n.alts {
			var m keyed
			for _, k := range alt {
				m.merge(members[k][ct], maxInt)
			}
			own.merge(m, sat)
		}
		members[i][ct] = own
		worst = max(worst, own.top())
	}
	return worst
}

func maxInt(a, b int64) int64 { return max(a, b) }

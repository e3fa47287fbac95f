package schema

import (
	"strings"
	"testing"
)

// schemaGen builds a schema document from fuzz bytes: the keywords of the
// fast path (and a few it declines) with values right and wrong.
type schemaGen struct{ instanceGen }

var genTypes = []string{"null", "boolean", "integer", "number", "string", "array", "object"}
var genPatterns = []string{"^[a-z]+$", "^\\d{3}-\\d{4}$", "\\w+@\\w+", "^(?:ab|cd)*$", "[^\\]x]", "^é{2,}$", "^a{1}b?$|^$", "", ".", "\\p{L}", "^.{2}$"}

func (g *schemaGen) number() any {
	if g.byte()&1 == 0 {
		return genInts[int(g.byte())%len(genInts)]
	}
	return genFloats[int(g.byte())%len(genFloats)]
}

func (g *schemaGen) schema(depth int) any {
	c := g.byte()
	if c%16 == 15 || depth > 3 {
		return c&0x10 != 0 // true or false
	}
	n := int(g.byte() % 6)
	m := make(map[string]any, n)
	for range n {
		switch g.byte() % 24 {
		case 0:
			m["type"] = genTypes[int(g.byte())%len(genTypes)]
		case 1:
			k := int(g.byte()%3) + 1
			ts := make([]any, 0, k)
			for range k {
				ts = append(ts, genTypes[int(g.byte())%len(genTypes)])
			}
			m["type"] = ts
		case 2:
			m["const"] = g.value(2)
		case 3:
			k := int(g.byte() % 5)
			e := make([]any, 0, k)
			for range k {
				e = append(e, g.value(2))
			}
			m["enum"] = e
		case 4:
			k := int(g.byte() % 4)
			p := make(map[string]any, k)
			for range k {
				p[genKeys[int(g.byte())%len(genKeys)]] = g.schema(depth + 1)
			}
			m["properties"] = p
		case 5:
			k := int(g.byte() % 4)
			r := make([]any, 0, k)
			for range k {
				r = append(r, genKeys[int(g.byte())%len(genKeys)])
			}
			m["required"] = r
		case 6:
			m["additionalProperties"] = g.schema(depth + 1)
		case 7:
			m["minProperties"] = int64(g.byte() % 4)
		case 8:
			m["maxProperties"] = int64(g.byte() % 4)
		case 9:
			m["minItems"] = int64(g.byte() % 4)
		case 10:
			m["maxItems"] = int64(g.byte() % 4)
		case 11:
			m["uniqueItems"] = g.byte()&1 == 0
		case 12:
			k := int(g.byte() % 3)
			p := make([]any, 0, k)
			for range k {
				p = append(p, g.schema(depth+1))
			}
			m["prefixItems"] = p
		case 13:
			m["items"] = g.schema(depth + 1)
		case 14:
			m["minLength"] = int64(g.byte() % 4)
		case 15:
			m["maxLength"] = int64(g.byte() % 4)
		case 16:
			m["pattern"] = genPatterns[int(g.byte())%len(genPatterns)]
		case 17:
			m["minimum"] = g.number()
		case 18:
			m["maximum"] = g.number()
		case 19:
			m["exclusiveMinimum"] = g.number()
		case 20:
			m["exclusiveMaximum"] = g.number()
		case 21:
			m["multipleOf"] = g.number()
		case 22:
			m["anyOf"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
		default:
			// A keyword given a value of any type (often wrong).
			kw := []string{"type", "minLength", "required", "properties", "pattern", "multipleOf", "items", "enum"}
			m[kw[int(g.byte())%len(kw)]] = g.value(3)
		}
	}
	return m
}

// FuzzCompileDifferential compiles schemas built from the fuzz bytes, as a
// tool's author (or an MCP server) could send them: Compile never panics,
// an error names the tool, and a schema on the fast path gives, for every
// instance, the verdict and error of the reference validator.
func FuzzCompileDifferential(f *testing.F) {
	f.Add([]byte{0, 3, 0, 6, 4, 1, 2, 9}, []byte{9, 3, 0, 6, 4, 1, 2, 9})
	f.Add([]byte{1, 4, 17, 3, 18, 7, 21, 12, 14, 2, 16, 4}, []byte{2, 11, 6, 3})
	f.Add([]byte{2, 5, 4, 3, 1, 0, 4, 2, 5, 2, 0, 1, 6, 0, 2, 8, 7, 2}, []byte{9, 2, 0, 4, 1, 5, 6, 3})
	f.Add([]byte{3, 3, 11, 0, 13, 0, 2, 0, 2, 9, 3}, []byte{8, 3, 2, 1, 2, 1, 2, 2})
	f.Add([]byte{4, 2, 3, 4, 2, 1, 6, 2, 4, 3}, []byte{6, 3})
	var insts []any
	for _, s := range diffInstances {
		insts = append(insts, value(f, s))
	}
	f.Fuzz(func(t *testing.T, sdata, idata []byte) {
		g := &schemaGen{instanceGen{b: sdata}}
		doc, ok := g.schema(0).(map[string]any)
		if !ok {
			return
		}
		v, err := Compile("fuzz-tool", doc)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz-tool") {
				t.Fatalf("Compile(%#v): error does not name the tool: %v", doc, err)
			}
			return
		}
		if !v.Fast() {
			// The reference alone: it must not panic.
			for _, in := range insts[:20] {
				_ = v.Validate(in)
			}
			return
		}
		ig := &instanceGen{b: idata}
		check := func(in any) {
			if fast, ref, d := differ(v, in); d {
				t.Fatalf("schema %#v, instance %#v: fast %q, reference %q", doc, in, fast, ref)
			}
		}
		for _, in := range insts {
			check(in)
		}
		for len(ig.b) > 0 {
			check(ig.value(0))
		}
	})
}

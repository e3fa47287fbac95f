package schema

import (
	"encoding/binary"
	"math"
	"testing"
)

// diffSchemas are fast-path schemas; every one must compile to the fast
// path (checked), and for every instance the fast verdict must equal the
// reference's.
var diffSchemas = []string{
	`{"type":"object","properties":{"msg":{"type":"string"},"n":{"type":"integer"}},"required":["msg","n"]}`,
	`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`,
	`{"type":"object","properties":{"value":{}},"required":["value"]}`,
	`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`,
	`{"type":"object","properties":{"tool":{"type":"string"},"params":{"type":"object"}},"required":["tool","params"]}`,
	`{"type":"object","additionalProperties":{"type":["string","null"]},"minProperties":1,"maxProperties":2}`,
	`{"type":"object","properties":{"x":false,"y":true},"required":["z"]}`,
	`{"type":["integer","string"],"minimum":-5,"maximum":5,"minLength":1,"maxLength":3}`,
	`{"type":"number","exclusiveMinimum":0.1,"exclusiveMaximum":1e20,"multipleOf":0.01}`,
	`{"type":"number","minimum":1152921504606846976}`,
	`{"type":"number","maximum":9007199254740993}`,
	`{"type":"number","minimum":0.3,"maximum":0.30000000000000004}`,
	`{"multipleOf":3,"maximum":-0.5}`,
	`{"multipleOf":1e-7}`,
	`{"type":"integer","exclusiveMinimum":-9223372036854775808,"exclusiveMaximum":9.3e18}`,
	`{"enum":[1,"a",null,true,[1,2],{"a":1},2.5,-0.0]}`,
	`{"enum":[1,"a",null,true,[1,2],{"a":1},2.5,-0.0,1152921504606846976,9007199254740993,"é",false,0.1]}`,
	`{"const":{"k":[1,{"z":null}]}}`,
	`{"const":1152921504606846976}`,
	`{"const":1.0}`,
	`{"type":"array","uniqueItems":true,"maxItems":40}`,
	`{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false,"minItems":1}`,
	`{"type":"array","items":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}}`,
	`{"type":"string","pattern":"^[a-z]+$"}`,
	`{"type":"string","pattern":"^\\d{3}-\\d{4}$"}`,
	`{"type":"string","pattern":"\\w+@\\w+"}`,
	`{"type":"string","pattern":"^(?:ab|cd)*$"}`,
	`{"type":"string","pattern":"[^\\]x]"}`,
	`{"type":"string","pattern":"^é{2,}$","minLength":2}`,
	`{"type":"string","pattern":"^a{1}b?$|^$"}`,
	`{"properties":{"tags":{"type":"array","items":{"type":"string","maxLength":4},"uniqueItems":true}}}`,
	`{"description":"anything"}`,
	`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"string"}}},"additionalProperties":{"type":"object","properties":{"z":{"type":"integer"}}},"required":["q"]}`,
	`{"type":"array","minItems":3,"uniqueItems":true,"items":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`,
}

var diffInstances = []string{
	`null`, `true`, `false`, `0`, `-0.0`, `1`, `1.0`, `-1`, `0.5`, `0.01`, `0.1`, `0.3`, `0.30000000000000004`,
	`0.30000000000000004441`, `3`, `-3`, `-3.0`, `6e0`, `1e20`, `1e300`, `-6`, `2.5`, `0.02`, `0.07`, `1e-7`, `3e-7`,
	`1152921504606846976`, `1152921504606846975`, `1152921504606847000`, `1.152921504606847e18`,
	`9007199254740992`, `9007199254740993`, `9007199254740994`, `9.007199254740993e15`,
	`9223372036854775807`, `-9223372036854775808`, `9.3e18`, `9.2e18`,
	`""`, `"a"`, `"abc"`, `"abcd"`, `"ABC"`, `"abc\n"`, `"123-4567"`, `"123-45678"`, `"٣٣٣-٣٣٣٣"`, `"a@b"`, `"é@b"`,
	`"abcd"`, `"cdab"`, `"aba"`, `"éé"`, `"é"`, `"ab"`, `"x"`, `"y "`, `"]"`, `"a"`,
	`[]`, `[1]`, `[1,"a"]`, `[1,"a",3]`, `[1,1.0]`, `[[1,2],[1,2.0]]`, `[{"a":1},{"a":1.0}]`, `[{"n":1},{"n":"x"}]`, `[{"m":1}]`,
	`["a","b","a"]`, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,1]`,
	`{}`, `{"msg":"hello","n":42}`, `{"msg":"hello","n":42.0}`, `{"msg":"hello","n":4.2}`, `{"msg":1,"n":1}`, `{"msg":"x"}`,
	`{"a":1,"b":2}`, `{"a":1,"b":2,"c":3}`, `{"a":1.5,"b":2}`, `{"a":1}`, `{"value":null}`, `{"value":{"deep":[1]}}`,
	`{"ms":0}`, `{"ms":-1}`, `{"ms":1e3}`, `{"tool":"echo","params":{}}`, `{"tool":"echo","params":[]}`,
	`{"p":"s"}`, `{"p":null,"q":"r"}`, `{"p":1}`, `{"p":"a","q":"b","r":"c"}`, `{"x":1,"z":1}`, `{"y":1,"z":1}`, `{"z":0}`,
	`{"k":[1,{"z":null}]}`, `{"k":[1.0,{"z":null}]}`, `{"k":[1,{"z":false}]}`, `{"tags":["a","bb"]}`, `{"tags":["a","a"]}`,
	`{"tags":["abcde"]}`, `{"tags":"a"}`,
	`{"a":1,"b":[1]}`, `{"a":1,"c":{"z":"x"}}`, `{"c":{"z":1},"b":["x",2]}`, `{"a":"x","b":[],"c":{}}`, `[{"n":"x"}]`, `[1,{"n":1}]`, `[{"n":1},{"n":1}]`,
}

func compileDiff(t testing.TB, s string) *Validator {
	t.Helper()
	v, err := Compile("diff", mustJSON(t, s))
	if err != nil {
		t.Fatalf("Compile(%s): %v", s, err)
	}
	if !v.Fast() {
		t.Fatalf("schema %s is not on the fast path", s)
	}
	return v
}

// differ reports whether the fast path and the reference disagree on val:
// on the verdict, or on the error (its path and message) when both refuse
// it; a fast path that declines (unsupported) cannot disagree.
func differ(v *Validator, val any) (fast, ref string, differs bool) {
	st, _ := v.fast.validate(val)
	if st == stUnsupported {
		return "", "", false
	}
	fast = "ok"
	if st == stFail {
		st, f := v.fast.best(val)
		if st != stFail {
			return "best: no failure", "", true
		}
		fast = f.toError().Error()
	}
	ref = "ok"
	if err := v.validateRef(val); err != nil {
		ref = err.Error()
	}
	return fast, ref, fast != ref
}

func TestDifferential(t *testing.T) {
	checked := 0
	for _, s := range diffSchemas {
		v := compileDiff(t, s)
		for _, in := range diffInstances {
			val := value(t, in)
			fast, ref, d := differ(v, val)
			if d {
				t.Errorf("schema %s, instance %s: fast %q, reference %q", s, in, fast, ref)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// instanceGen builds a canonical value from fuzz bytes.
type instanceGen struct{ b []byte }

func (g *instanceGen) byte() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

var genKeys = []string{"msg", "n", "a", "b", "value", "ms", "tool", "params", "x", "y", "z", "k", "tags", "p", "", "é"}
var genStrings = []string{"", "a", "abc", "ABC", "hello", "123-4567", "a@b", "éé", "abc\n", "ab", "cd", "x]", "٣", "😀😀", "]"}
var genFloats = []float64{0, math.Copysign(0, -1), 0.5, 1, -1, 0.1, 0.01, 0.3, 0.30000000000000004, 1e20, 1e300, 2.5, 3, 1e-7,
	1152921504606846976, 9007199254740992, 9007199254740994, 9.3e18, -9.3e18, 1.5, 42}
var genInts = []int64{0, 1, -1, 2, 3, 5, 6, -5, -6, 42, 100, 1152921504606846976, 1152921504606846975, 9007199254740993,
	math.MaxInt64, math.MinInt64, 1 << 53, 1000}

func (g *instanceGen) value(depth int) any {
	c := g.byte()
	switch c % 10 {
	case 0:
		return nil
	case 1:
		return c&0x10 != 0
	case 2:
		return genInts[int(g.byte())%len(genInts)]
	case 3:
		return int64(int8(g.byte()))
	case 4:
		return genFloats[int(g.byte())%len(genFloats)]
	case 5:
		if len(g.b) >= 8 {
			f := math.Float64frombits(binary.LittleEndian.Uint64(g.b))
			g.b = g.b[8:]
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
		return 0.25
	case 6:
		return genStrings[int(g.byte())%len(genStrings)]
	case 7:
		n := int(g.byte() % 8)
		if n > len(g.b) {
			n = len(g.b)
		}
		s := string(g.b[:n])
		g.b = g.b[n:]
		return s
	case 8:
		if depth > 4 {
			return nil
		}
		n := int(g.byte() % 6)
		a := make([]any, 0, n)
		for range n {
			a = append(a, g.value(depth+1))
		}
		return a
	default:
		if depth > 4 {
			return "deep"
		}
		n := int(g.byte() % 5)
		m := make(map[string]any, n)
		for range n {
			m[genKeys[int(g.byte())%len(genKeys)]] = g.value(depth + 1)
		}
		return m
	}
}

func FuzzValidateDifferential(f *testing.F) {
	f.Add(uint8(0), []byte{9, 3, 0, 6, 4, 1, 2, 9})
	f.Add(uint8(1), []byte{9, 2, 2, 2, 3, 2, 2, 3, 2, 4})
	f.Add(uint8(8), []byte{4, 2, 4, 5})
	f.Add(uint8(9), []byte{2, 11})
	f.Add(uint8(15), []byte{8, 5, 2, 1, 4, 3, 4, 2, 8, 2, 0, 1})
	f.Add(uint8(19), []byte{8, 5, 6, 1, 6, 2, 6, 1, 3, 1, 4, 3})
	f.Add(uint8(22), []byte{7, 4, 'a', 'b', 'c', 'd'})
	f.Add(uint8(26), []byte{7, 3, 'x', 'y', ']'})
	f.Add(uint8(23), []byte{7, 8, '1', '2', '3', '-', '4', '5', '6', '7'})
	f.Add(uint8(12), []byte{5, 0, 0, 0, 0, 0, 0, 0xf8, 0xbf})
	validators := make([]*Validator, len(diffSchemas))
	for i, s := range diffSchemas {
		validators[i] = compileDiff(f, s)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		v := validators[int(which)%len(validators)]
		g := &instanceGen{b: data}
		val := g.value(0)
		if fast, ref, d := differ(v, val); d {
			t.Fatalf("schema %s, instance %#v: fast %q, reference %q", diffSchemas[int(which)%len(validators)], val, fast, ref)
		}
	})
}

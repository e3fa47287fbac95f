package wit

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/schema"
)

// probeWIT declares one function per type, f(x: T) -> T, over the kinds
// the JSON mapping has: every integer at its bounds, floats, char, string,
// bytes, nested lists and options, results, tuples, records with
// kebab-case fields, variants with and without payloads, enums, flags and
// maps.
const probeWIT = `package probe:types;
interface t {
  /// A record.
  record kebab-rec {
    /// The width.
    max-width: u32,
    opt-label: option<string>,
    nested: option<option<u8>>,
  }
  /// A shape.
  variant shape {
    /// Nothing.
    none,
    circle(f64),
    rect(kebab-rec),
    inner(option<u8>),
    %list(list<shape-kind>),
  }
  /// Kinds.
  enum shape-kind {
    /// Red things.
    red,
    dark-green,
  }
  /// Permissions.
  flags perms {
    /// May read.
    read,
    write-all,
  }
  f-bool: func(x: bool) -> bool;
  f-u8: func(x: u8) -> u8;
  f-u16: func(x: u16) -> u16;
  f-u32: func(x: u32) -> u32;
  f-u64: func(x: u64) -> u64;
  f-s8: func(x: s8) -> s8;
  f-s16: func(x: s16) -> s16;
  f-s32: func(x: s32) -> s32;
  f-s64: func(x: s64) -> s64;
  f-f32: func(x: f32) -> f32;
  f-f64: func(x: f64) -> f64;
  f-char: func(x: char) -> char;
  f-string: func(x: string) -> string;
  f-bytes: func(x: list<u8>) -> list<u8>;
  f-bytes2: func(x: list<u8, 2>) -> list<u8, 2>;
  f-list-list-u8: func(x: list<list<u8>>) -> list<list<u8>>;
  f-list-list-s32: func(x: list<list<s32>>) -> list<list<s32>>;
  f-opt: func(x: option<u8>) -> option<u8>;
  f-opt-opt: func(x: option<option<u8>>) -> option<option<u8>>;
  f-opt-opt-opt: func(x: option<option<option<string>>>) -> option<option<option<string>>>;
  f-opt-bytes: func(x: option<list<u8>>) -> option<list<u8>>;
  f-list-opt: func(x: list<option<u8>>) -> list<option<u8>>;
  f-res-empty: func(x: list<result>) -> list<result>;
  f-res-err: func(x: list<result<_, string>>) -> list<result<_, string>>;
  f-res-ok: func(x: list<result<u8>>) -> list<result<u8>>;
  f-res: func(x: list<result<u8, string>>) -> list<result<u8, string>>;
  f-opt-res: func(x: option<result>) -> option<result>;
  f-tuple: func(x: tuple<u8, string>) -> tuple<u8, string>;
  f-tuple1: func(x: tuple<option<u8>>) -> tuple<option<u8>>;
  f-rec: func(x: kebab-rec) -> kebab-rec;
  f-shape: func(x: shape) -> shape;
  f-kind: func(x: shape-kind) -> shape-kind;
  f-perms: func(x: perms) -> perms;
  f-map: func(x: map<string, u8>) -> map<string, u8>;
  f-map-u32: func(x: map<u32, string>) -> map<u32, string>;
}
world w { export t; }
`

// probeValues are JSON texts at the edges of every kind: integer bounds
// and one past them, integral floats, -0, 2^53+1, huge and tiny numbers,
// the empty string, base64 and not, and objects near each encoding.
var probeValues = []string{
	`null`, `true`, `false`,
	`0`, `-0`, `0.0`, `-0.0`, `1`, `1.0`, `1e0`, `1E2`, `-1`, `-1.0`, `1.5`, `0.1`,
	`127`, `128`, `-128`, `-129`, `255`, `256`, `255.0`, `256.0`,
	`32767`, `32768`, `-32768`, `-32769`, `65535`, `65536`,
	`2147483647`, `2147483648`, `-2147483648`, `-2147483649`, `4294967295`, `4294967296`, `4294967295.0`,
	`9007199254740992`, `9007199254740993`, `9007199254740993.0`,
	`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
	`18446744073709551615`, `18446744073709551616`, `1.8446744073709552e19`, `1e19`, `-1e19`,
	`1e300`, `-1e300`, `1e-300`, `5e-324`, `3.4028235e38`, `-3.4028235e38`, `3.5e38`, `1e-46`,
	`""`, `"a"`, `"é"`, `"😀"`, `"ab"`, `"\uFFFD"`, `"\u0000"`, `"e\u0301"`,
	`"aGk="`, `"aGk"`, `"aGk=\n"`, `"a b"`, `"!!"`, `"AAAA"`, `"AA=="`, `"AB=="`, `"_-8="`, `"////"`,
	`[]`, `[0]`, `[1, 2]`, `[255, 256]`, `[1.0, 2]`, `[[]]`, `[[1]]`, `[[1, 2], []]`, `[[-1]]`, `[null]`, `[null, 1]`,
	`["aGk="]`, `[[2147483647, -2147483648]]`, `[1, "a"]`, `[1, "a", 2]`, `["1", "a"]`, `[[1, "a"]]`, `[[1, "a"], [1, "b"]]`,
	`[{"ok": null}]`, `[{"err": null}]`, `[{"ok": 1}]`, `[{"err": "x"}]`, `[{"ok": 1, "err": "x"}]`, `[{}]`, `[{"err": 1}]`,
	`{}`, `{"some": null}`, `{"some": 1}`, `{"some": {"some": "x"}}`, `{"some": {"some": null}}`, `{"some": "aGk="}`, `{"some": 1, "x": 1}`,
	`{"ok": null}`, `{"err": null}`, `{"ok": 1}`,
	`{"tag": "none"}`, `{"tag": "none", "val": null}`, `{"tag": "circle", "val": 1}`, `{"tag": "circle", "val": -0.0}`, `{"tag": "circle"}`,
	`{"tag": "rect", "val": {"max-width": 1}}`, `{"tag": "inner", "val": null}`, `{"tag": "inner", "val": 3}`, `{"tag": "list", "val": ["red"]}`,
	`{"tag": "Circle", "val": 1}`, `{"tag": "none", "x": 1}`,
	`"red"`, `"dark-green"`, `"Red"`, `"dark_green"`,
	`["read"]`, `["read", "read"]`, `["write-all", "read"]`, `["write_all"]`,
	`{"max-width": 1}`, `{"max-width": 1, "opt-label": null}`, `{"max-width": 1, "opt-label": "x", "nested": {"some": null}}`,
	`{"max-width": 1, "nested": null}`, `{"max-width": 1, "nested": 5}`, `{"max-width": 1, "nested": {"some": 5}}`,
	`{"max-width": 1, "max_width": 1}`, `{"maxWidth": 1}`, `{"max-width": 4294967296}`, `{"max-width": 1, "Opt-label": "x"}`,
	`{"a": 1}`, `{"a": 256}`, `{"a": 1, "b": 2}`, `{"": 0}`,
}

// TestSchemaAcceptsWhatConverts: for every function f(x: T) -> T of
// probeWIT and every value of probeValues, the published params schema
// accepts {"x": value} exactly when FuncParamsFromJSON converts it; the
// converted value returned by f renders (FuncResultToJSON) as JSON that
// the published result schema accepts, and converts back to the same
// value.
func TestSchemaAcceptsWhatConverts(t *testing.T) {
	res, err := ParseSource("probe.wit", probeWIT, Options{})
	if err != nil {
		t.Fatal(err)
	}
	iface := res.Root.Interface("t")
	for _, f := range iface.Funcs {
		if err := FuncJSONCompatible(f); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		ps, err := schema.Compile(f.Name+" params", FuncParamsSchema(f))
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		rs, err := schema.Compile(f.Name+" result", FuncResultSchema(f))
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, text := range probeValues {
			params := probeDecode(t, `{"x": `+text+`}`)
			verr := ps.Validate(params)
			args, cerr := FuncParamsFromJSON(f, params)
			if verr == nil && cerr != nil && strings.Contains(cerr.Error(), "expected bytes as base64") {
				// The one gap left: the schema cannot check that a
				// string is base64 (a pattern over an image's
				// megabytes takes about a second), so the conversion
				// refuses it, naming what is wrong.
				if !strings.Contains(cerr.Error(), "character") {
					t.Errorf("%s(x: %s): %v names no character", f.Name, text, cerr)
				}
				continue
			}
			if (verr == nil) != (cerr == nil) {
				t.Errorf("%s(x: %s): schema says %v, conversion says %v", f.Name, text, verr, cerr)
				continue
			}
			if cerr != nil {
				continue
			}
			out, _, failed, err := FuncResultToJSON(f, args[0])
			if err != nil || failed {
				t.Errorf("%s(x: %s): result %v %v", f.Name, text, failed, err)
				continue
			}
			wire, outText := probeWire(t, out)
			if err := rs.Validate(wire); err != nil {
				t.Errorf("%s(x: %s): result %s refused by the result schema: %v", f.Name, text, outText, err)
			}
			back, err := FuncParamsFromJSON(f, map[string]any{"x": wire})
			if err != nil {
				t.Errorf("%s(x: %s): result %s does not convert back: %v", f.Name, text, outText, err)
				continue
			}
			if !reflect.DeepEqual(normBytes(back[0]), normBytes(args[0])) {
				t.Errorf("%s(x: %s): round trip through %s gave %#v, want %#v", f.Name, text, outText, back[0], args[0])
			}
		}
	}
}

// probeSample is a JSON value of t's JSON form (canonical generic form),
// built from the mapping docs/wit.md documents, not from FromJSON.
func probeSample(t *Type) any {
	if t == nil {
		return nil
	}
	switch t.Kind {
	case KindBool:
		return true
	case KindS8, KindU8, KindS16, KindU16, KindS32, KindU32, KindS64, KindU64:
		_, max := intRange(t.Kind)
		if max > 1<<63-1 {
			return max
		}
		return int64(max)
	case KindF32, KindF64:
		return 1.5
	case KindChar:
		return "é"
	case KindString:
		return "s"
	case KindList:
		if isBytes(t) {
			return "aGk="
		}
		n := int(t.Len)
		if n == 0 {
			n = 1
		}
		out := make([]any, n)
		for i := range out {
			out[i] = probeSample(t.Elem)
		}
		return out
	case KindRecord:
		m := map[string]any{}
		for _, f := range t.Fields {
			m[f.Name] = probeSample(f.Type)
		}
		return m
	case KindTuple:
		out := []any{}
		for _, e := range t.Tuple {
			out = append(out, probeSample(e))
		}
		return out
	case KindVariant:
		c := t.Cases[len(t.Cases)-1]
		if c.Type == nil {
			return map[string]any{"tag": c.Name}
		}
		return map[string]any{"tag": c.Name, "val": probeSample(c.Type)}
	case KindEnum:
		return t.Names[len(t.Names)-1]
	case KindFlags:
		out := []any{}
		for _, n := range t.Names {
			out = append(out, n)
		}
		return out
	case KindOption:
		v := probeSample(t.Elem)
		if nullable(t.Elem) {
			return map[string]any{"some": v}
		}
		return v
	case KindResult:
		return map[string]any{"err": probeSample(t.Err)}
	case KindMap:
		if isStringKey(t) {
			return map[string]any{"k": probeSample(t.Elem)}
		}
		return []any{[]any{probeSample(t.Key), probeSample(t.Elem)}}
	}
	return nil
}

// corpusFuncs lists every function of res: interfaces' free functions
// and resource members, world functions.
func corpusFuncs(res *Resolved) []*Func {
	var out []*Func
	seen := map[*Func]bool{}
	add := func(f *Func) {
		if f != nil && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	addIface := func(i *Interface) {
		if i == nil {
			return
		}
		for _, f := range i.Funcs {
			add(f)
		}
		for _, td := range i.Types {
			if td.Type != nil && td.Type.Resource != nil {
				for _, m := range td.Type.Resource.Methods {
					add(m)
				}
			}
		}
	}
	for _, p := range res.Packages {
		for _, i := range p.Interfaces {
			addIface(i)
		}
		for _, w := range p.Worlds {
			for _, it := range append(append([]*WorldItem{}, w.Imports...), w.Exports...) {
				add(it.Func)
				addIface(it.Interface)
			}
		}
	}
	return out
}

// TestCorpusSchemas: every function of the wit-parser UI corpus that
// FuncJSONCompatible accepts has params and result schemas the host's
// schema package compiles, and a value of each parameter's JSON form is
// accepted by the params schema and converted; the result's value renders
// as JSON its schema accepts. Nothing panics.
func TestCorpusSchemas(t *testing.T) {
	dir := corpusDir(t)
	funcs, errors := 0, 0
	for _, p := range corpusInputs(t, dir) {
		res, err := Parse(p, corpusOpts)
		if err != nil {
			continue
		}
		for _, f := range corpusFuncs(res) {
			name := filepath.Base(p) + ": " + f.Name
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s: panic %v", name, r)
					}
				}()
				if FuncJSONCompatible(f) != nil {
					return
				}
				funcs++
				ps, err := schema.Compile(name, FuncParamsSchema(f))
				if err != nil {
					t.Errorf("%s: params schema: %v", name, err)
					return
				}
				rs, err := schema.Compile(name, FuncResultSchema(f))
				if err != nil {
					t.Errorf("%s: result schema: %v", name, err)
					return
				}
				params := map[string]any{}
				for _, p := range f.Params {
					params[p.Name] = probeSample(p.Type)
				}
				wire, text := probeWire(t, params)
				if err := ps.Validate(wire); err != nil {
					t.Errorf("%s: params %s refused by its schema: %v", name, text, err)
				}
				if _, err := FuncParamsFromJSON(f, wire); err != nil {
					t.Errorf("%s: params %s do not convert: %v", name, text, err)
				}
				if f.Result == nil {
					return
				}
				rt := f.Result
				if rt.Kind == KindResult {
					rt = rt.Ok
				}
				v, err := FromJSON(rt, probeSample(rt), "$")
				if err != nil {
					t.Errorf("%s: result sample: %v", name, err)
					return
				}
				if rt != f.Result {
					v = Result{Val: v}
				}
				out, _, _, err := FuncResultToJSON(f, v)
				if err != nil {
					t.Errorf("%s: result: %v", name, err)
					return
				}
				wire, text = probeWire(t, out)
				if err := rs.Validate(wire); err != nil {
					t.Errorf("%s: result %s refused by its schema: %v", name, text, err)
				}
				if f.Result.Kind != KindResult {
					return
				}
				// The error side: a ProviderError whose data is E's JSON,
				// which FuncErrorSchema describes.
				ev, err := FromJSON(f.Result.Err, probeSample(f.Result.Err), "$")
				if err != nil {
					t.Errorf("%s: error sample: %v", name, err)
					return
				}
				res, data, failed, err := FuncResultToJSON(f, Result{IsErr: true, Val: ev})
				if err != nil || !failed || res != nil {
					t.Errorf("%s: error result: %v %v %v", name, res, failed, err)
					return
				}
				es, err := schema.Compile(name, FuncErrorSchema(f))
				if err != nil {
					t.Errorf("%s: error schema: %v", name, err)
					return
				}
				errors++
				wire, text = probeWire(t, data)
				if err := es.Validate(wire); err != nil {
					t.Errorf("%s: error data %s refused by its schema: %v", name, text, err)
				}
			}()
		}
	}
	if funcs < 50 || errors < 2 {
		t.Errorf("only %d functions with a JSON form in the corpus, %d with an error side", funcs, errors)
	}
	t.Logf("%d functions checked, %d with an error side", funcs, errors)
}

// TestBytesBase64Forms: a list<u8> param takes base64 in the
// standard and the URL-safe alphabet, padded or not (it took the padded
// standard form only, and refused "aGk" blaming byte 0); a string that is
// not base64 is refused naming the character and its position, or what is
// wrong with the padding.
func TestBytesBase64Forms(t *testing.T) {
	bt := &Type{Kind: KindList, Elem: Primitive(KindU8)}
	for _, c := range []struct{ in, want string }{
		{"aGk=", "hi"}, {"aGk", "hi"}, {"aGk=\n", "hi"}, {"aG\r\nk", "hi"}, {"", ""}, {"AA", "\x00"},
		{"_-8=", "\xff\xef"}, {"_-8", "\xff\xef"}, {"+/8=", "\xfb\xff"}, {"__-_", "\xff\xff\xbf"}, {"aGVsbG8", "hello"},
	} {
		v, err := FromJSON(bt, c.in, "$.params.data")
		if err != nil || string(v.([]byte)) != c.want {
			t.Errorf("%q: %q %v, want %q", c.in, v, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"!!", "'!' at character 0 is not a base64 character"},
		{"aGk é", "' ' at character 3"},
		{"aGké", "'é' (U+00E9) at character 3"},
		{"aGk==", "3 data characters take 1 padding characters '=', not 2"},
		{"a", "lone one"},
		{"aGk=x", "'x' at character 4 follows the padding"},
		{"a+b-", "'-' at character 3 mixes the URL-safe alphabet"},
		{"aGk\xff", "byte 0xff at character 3"},
	} {
		_, err := FromJSON(bt, c.in, "$.params.data")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "$.params.data: ") {
			t.Errorf("%q: %v, want the path and %q", c.in, err, c.want)
		}
	}
}

func mutations(v any) []any {
	out := []any{v, []any{v}, map[string]any{"some": v}, map[string]any{"tag": v}, nil}
	switch x := v.(type) {
	case map[string]any:
		for k := range x {
			m := map[string]any{}
			for k2, e := range x {
				if k2 != k {
					m[k2] = e
				}
			}
			out = append(out, m)
			m2 := map[string]any{}
			for k2, e := range x {
				m2[k2] = e
			}
			m2[k] = nil
			out = append(out, m2)
			m3 := map[string]any{}
			for k2, e := range x {
				m3[k2] = e
			}
			m3[k] = map[string]any{"some": x[k]}
			out = append(out, m3)
		}
		m := map[string]any{"zz": int64(1)}
		for k2, e := range x {
			m[k2] = e
		}
		out = append(out, m)
	case []any:
		if len(x) > 0 {
			out = append(out, x[1:], append(append([]any{}, x...), x[0]))
			for i := range x {
				c := append([]any{}, x...)
				for _, m := range mutations(x[i])[1:] {
					c[i] = m
					out = append(out, append([]any{}, c...))
				}
			}
		}
	}
	return out
}

// TestSchemaAcceptsWhatConvertsRandom: over random types (randType)
// and, for each, a value of its JSON form (probeSample), that value
// mutated (a member dropped, nulled, wrapped in {"some": …} or added; an
// element dropped, repeated or mutated; the whole wrapped) and every
// value of probeValues, the params schema accepts {"x": value} exactly
// when the conversion does (but for a list<u8> string that is not base64,
// see TestSchemaAcceptsWhatConverts).
func TestSchemaAcceptsWhatConvertsRandom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	bad, checked := 0, 0
	for i := 0; i < 300 && bad < 20; i++ {
		typ := randType(r, 0)
		f := &Func{Name: "f", Params: []Param{{Name: "x", Type: typ}}}
		v, err := schema.Compile("f", FuncParamsSchema(f))
		if err != nil {
			t.Fatal(err)
		}
		var vals []any
		for _, m := range mutations(probeSample(typ)) {
			b, _ := json.Marshal(m)
			vals = append(vals, string(b))
		}
		for _, s := range probeValues {
			vals = append(vals, s)
		}
		for _, s := range vals {
			pv := probeDecode(t, `{"x": `+s.(string)+`}`)
			checked++
			verr := v.Validate(pv)
			_, cerr := FuncParamsFromJSON(f, pv)
			if (verr == nil) != (cerr == nil) && !(cerr != nil && strings.Contains(cerr.Error(), "expected bytes as base64")) {
				sb, _ := json.Marshal(FuncParamsSchema(f))
				t.Errorf("%s: schema %v conv %v\n%s", s, verr, cerr, sb)
				bad++
			}
		}
	}
	if checked < 40000 {
		t.Errorf("only %d values checked", checked)
	}
}

// TestBase64LineBreaksNotCopied: base64 with MIME line breaks (76
// characters a line) was copied twice without them before decoding, three
// allocations of its size for a picture of some megabytes; the decoder
// skips line breaks itself, so only the decoded bytes are allocated.
func TestBase64LineBreaksNotCopied(t *testing.T) {
	raw := make([]byte, 1<<20)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	enc := base64.StdEncoding.EncodeToString(raw)
	var mime strings.Builder
	for len(enc) > 76 {
		mime.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	mime.WriteString(enc + "\r\n")
	text := mime.String()
	got, err := bytesFromBase64(text)
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("MIME base64 of 1 MiB: %d bytes, %v", len(got), err)
	}
	for _, s := range []string{"aG\nk\n=", "aGk\n=\n", "-_-_\n-_8"} {
		want, _ := base64.RawURLEncoding.DecodeString(strings.NewReplacer("\n", "", "=", "").Replace(s))
		if got, err := bytesFromBase64(s); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%q: %q, %v; want %q", s, got, err, want)
		}
	}
	if n := testing.AllocsPerRun(5, func() { _, _ = bytesFromBase64(text) }); n > 1 {
		t.Errorf("decoding 1 MiB of MIME base64 allocates %v times; want the decoded bytes only", n)
	}
}

package wit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestFromJSONErrors(t *testing.T) {
	u32 := Primitive(KindU32)
	rec := &Type{Kind: KindRecord, Name: "params", Fields: []Field{
		{Name: "width", Type: u32},
		{Name: "label", Type: &Type{Kind: KindOption, Elem: Primitive(KindString)}},
	}}
	tests := []struct {
		name string
		t    *Type
		in   string
		want string // substring of the error
	}{
		{"u32 overflow", rec, `{"width": 4294967296}`, "$.params.width: 4294967296 is out of range for u32"},
		{"negative unsigned", u32, `-1`, "-1 is out of range for u32"},
		{"s8 low", Primitive(KindS8), `-129`, "out of range for s8"},
		{"fraction", u32, `1.5`, "not an integer"},
		{"missing field", rec, `{}`, `missing required field "width"`},
		{"unknown field", rec, `{"width": 1, "x": 2}`, `unknown field "x"`},
		{"char two", Primitive(KindChar), `"ab"`, "exactly one Unicode character"},
		{"enum", &Type{Kind: KindEnum, Names: []string{"a", "b"}}, `"c"`, "not a case"},
		{"flags twice", &Type{Kind: KindFlags, Names: []string{"a"}}, `["a","a"]`, "given twice"},
		{"bytes bad base64", &Type{Kind: KindList, Elem: Primitive(KindU8)}, `"!!"`, "base64"},
		{"fixed list", &Type{Kind: KindList, Elem: u32, Len: 2}, `[1]`, "exactly 2 elements"},
		{"variant no val", &Type{Kind: KindVariant, Cases: []Case{{Name: "x", Type: u32}}}, `{"tag":"x"}`, `needs a "val"`},
		{"result both", &Type{Kind: KindResult, Ok: u32}, `{"ok":1,"err":null}`, `expected {"ok"`},
		{"bool", Primitive(KindBool), `1`, "expected bool"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := decode(t, tc.in)
			path := "$"
			if tc.t == rec {
				path = "$.params"
			}
			_, err := FromJSON(tc.t, v, path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("FromJSON(%s) error = %v, want containing %q", tc.in, err, tc.want)
			}
		})
	}
}

func TestIntBounds(t *testing.T) {
	tests := []struct {
		k      Kind
		in     string
		want   Value
		errSub string
	}{
		{KindU64, "18446744073709551615", uint64(math.MaxUint64), ""},
		{KindU64, "18446744073709551616", nil, "out of range"},
		{KindS64, "-9223372036854775808", int64(math.MinInt64), ""},
		{KindS64, "9223372036854775808", nil, "out of range"},
		{KindU8, "255", uint64(255), ""},
		{KindU8, "256", nil, "out of range"},
		{KindS16, "-32768", int64(-32768), ""},
		{KindS32, "2147483648", nil, "out of range"},
	}
	for _, tc := range tests {
		v, err := FromJSON(Primitive(tc.k), json.Number(tc.in), "$")
		if tc.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errSub) {
				t.Errorf("%s %s: err %v", tc.k, tc.in, err)
			}
			continue
		}
		if err != nil || v != tc.want {
			t.Errorf("%s %s: got %v, %v", tc.k, tc.in, v, err)
		}
	}
	s := JSONSchema(Primitive(KindU64))
	if s["maximum"] != uint64(math.MaxUint64) {
		t.Errorf("u64 maximum = %#v", s["maximum"])
	}
	b, _ := json.Marshal(s)
	if !strings.Contains(string(b), `"maximum":18446744073709551615`) {
		t.Errorf("u64 schema JSON = %s", b)
	}
}

func TestFuncSchemas(t *testing.T) {
	res, err := ParseSource("t.wit", `package my-tools:image-tools@1.0.0;
interface tool-handler {
  /// Parameters of a resize.
  record tool-params { width: u32, height: u32, quality: option<u8>, }
  record tool-result { object: string }
  /// Resize an image.
  resize: func(params: tool-params, note: option<string>) -> result<tool-result, string>;
}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Root.Interface("tool-handler").Func("resize")
	ps := FuncParamsSchema(f)
	if got := fmt.Sprint(ps["required"]); got != "[params]" {
		t.Errorf("required = %s", got)
	}
	if ps["description"] != "Resize an image." {
		t.Errorf("description = %v", ps["description"])
	}
	inner := ps["properties"].(map[string]any)["params"].(map[string]any)
	if inner["additionalProperties"] != false || fmt.Sprint(inner["required"]) != "[width height]" {
		t.Errorf("record schema = %v", inner)
	}
	rs := FuncResultSchema(f)
	if rs["type"] != "object" || rs["properties"].(map[string]any)["object"] == nil {
		t.Errorf("result schema = %v", rs)
	}
	if es := FuncErrorSchema(f); es["type"] != "string" {
		t.Errorf("error schema = %v", es)
	}
	args, err := FuncParamsFromJSON(f, decode(t, `{"params":{"width":10,"height":20}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Value{Record{uint64(10), uint64(20), Option{}}, Option{}}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("args = %#v", args)
	}
	out, data, failed, err := FuncResultToJSON(f, Result{IsErr: true, Val: "too big"})
	if err != nil || !failed || data != "too big" || out != nil {
		t.Errorf("err result: %v %v %v %v", out, data, failed, err)
	}
	out, _, failed, err = FuncResultToJSON(f, Result{Val: Record{"sha256:x"}})
	if err != nil || failed || fmt.Sprint(out) != "map[object:sha256:x]" {
		t.Errorf("ok result: %v %v %v", out, failed, err)
	}
	if err := FuncJSONCompatible(f); err != nil {
		t.Error(err)
	}
}

func TestJSONCompatibleRefusesHandles(t *testing.T) {
	res, err := ParseSource("t.wit", `package a:b;
interface i { resource r; f: func(x: list<borrow<r>>); }`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = FuncJSONCompatible(res.Root.Interface("i").Funcs[0])
	if err == nil || !strings.Contains(err.Error(), "$.params.x[]: borrow<r> has no JSON form") {
		t.Fatalf("err = %v", err)
	}
}

func decode(t testing.TB, s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// reencode passes a value through JSON text as a real client would.
func reencode(t testing.TB, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, string(b))
}

// randType builds a random JSON-compatible type.
func randType(r *rand.Rand, depth int) *Type {
	simple := []Kind{KindBool, KindS8, KindU8, KindS16, KindU16, KindS32, KindU32, KindS64, KindU64, KindF32, KindF64, KindChar, KindString}
	if depth > 3 || r.Intn(3) == 0 {
		return Primitive(simple[r.Intn(len(simple))])
	}
	switch r.Intn(11) {
	case 0:
		return &Type{Kind: KindList, Elem: randType(r, depth+1)}
	case 1:
		return &Type{Kind: KindList, Elem: Primitive(KindU8)}
	case 2:
		return &Type{Kind: KindList, Elem: randType(r, depth+1), Len: uint32(1 + r.Intn(3))}
	case 3:
		n := r.Intn(4)
		t := &Type{Kind: KindRecord, Name: "rec", Fields: []Field{}}
		for i := 0; i < n; i++ {
			t.Fields = append(t.Fields, Field{Name: fmt.Sprintf("f%d", i), Type: randType(r, depth+1)})
		}
		return t
	case 4:
		n := r.Intn(3)
		t := &Type{Kind: KindTuple, Tuple: []*Type{}}
		for i := 0; i < n; i++ {
			t.Tuple = append(t.Tuple, randType(r, depth+1))
		}
		return t
	case 5:
		return &Type{Kind: KindOption, Elem: randType(r, depth+1)}
	case 6:
		return &Type{Kind: KindEnum, Names: []string{"red", "green", "blue"}}
	case 7:
		return &Type{Kind: KindFlags, Names: []string{"read", "write", "exec"}}
	case 8:
		t := &Type{Kind: KindVariant}
		for i := 0; i < 1+r.Intn(3); i++ {
			c := Case{Name: fmt.Sprintf("c%d", i)}
			if r.Intn(2) == 0 {
				c.Type = randType(r, depth+1)
			}
			t.Cases = append(t.Cases, c)
		}
		return t
	case 9:
		t := &Type{Kind: KindResult}
		if r.Intn(3) > 0 {
			t.Ok = randType(r, depth+1)
		}
		if r.Intn(3) > 0 {
			t.Err = randType(r, depth+1)
		}
		return t
	default:
		keys := []Kind{KindString, KindU32, KindChar}
		return &Type{Kind: KindMap, Key: Primitive(keys[r.Intn(len(keys))]), Elem: randType(r, depth+1)}
	}
}

func randValue(r *rand.Rand, t *Type) Value {
	if t == nil {
		return nil
	}
	switch t.Kind {
	case KindBool:
		return r.Intn(2) == 0
	case KindS8, KindS16, KindS32, KindS64:
		min, max := intRange(t.Kind)
		switch r.Intn(4) {
		case 0:
			return min
		case 1:
			return int64(max)
		}
		return int64(r.Intn(200) - 100)
	case KindU8, KindU16, KindU32, KindU64:
		_, max := intRange(t.Kind)
		if r.Intn(3) == 0 {
			return max
		}
		return uint64(r.Intn(200))
	case KindF32:
		return float32(r.NormFloat64() * 1e3)
	case KindF64:
		return r.NormFloat64() * 1e10
	case KindChar:
		return []rune{'a', 'é', '世', '😀', 0x10FFFF}[r.Intn(5)]
	case KindString:
		return []string{"", "hello", "ünïcödé", "a\"b\\c\n", "😀x"}[r.Intn(5)]
	case KindList:
		n := int(t.Len)
		if n == 0 {
			n = r.Intn(4)
		}
		if isBytes(t) {
			b := make([]byte, n)
			r.Read(b)
			return b
		}
		out := make([]Value, n)
		for i := range out {
			out[i] = randValue(r, t.Elem)
		}
		return out
	case KindRecord:
		out := make(Record, len(t.Fields))
		for i, f := range t.Fields {
			out[i] = randValue(r, f.Type)
		}
		return out
	case KindTuple:
		out := make(Tuple, len(t.Tuple))
		for i, e := range t.Tuple {
			out[i] = randValue(r, e)
		}
		return out
	case KindOption:
		if r.Intn(2) == 0 {
			return Option{}
		}
		return Option{Some: true, Val: randValue(r, t.Elem)}
	case KindEnum:
		return Enum(r.Intn(len(t.Names)))
	case KindFlags:
		return Flags(r.Intn(1 << len(t.Names)))
	case KindVariant:
		c := r.Intn(len(t.Cases))
		return Variant{Case: uint32(c), Val: randValue(r, t.Cases[c].Type)}
	case KindResult:
		if r.Intn(2) == 0 {
			return Result{IsErr: true, Val: randValue(r, t.Err)}
		}
		return Result{Val: randValue(r, t.Ok)}
	case KindMap:
		n := r.Intn(3)
		out := []Value{}
		for i := 0; i < n; i++ {
			var k Value
			switch t.Key.Kind {
			case KindString:
				k = fmt.Sprintf("k%d", i) // sorted, unique: FromJSON returns sorted keys
			case KindU32:
				k = uint64(i)
			default:
				k = rune('a' + i)
			}
			out = append(out, Tuple{k, randValue(r, t.Elem)})
		}
		return out
	}
	panic("randValue: " + t.Kind.String())
}

// TestJSONRoundTripProperty: random values of random types → ToJSON → valid
// against JSONSchema (santhosh-tekuri/jsonschema v6) → FromJSON → equal.
func TestJSONRoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 400; i++ {
		typ := randType(r, 0)
		schema := reencode(t, JSONSchema(typ))
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem://t.json", schema); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("mem://t.json")
		if err != nil {
			t.Fatalf("schema of %s does not compile: %v", typ.Kind, err)
		}
		for j := 0; j < 5; j++ {
			v := randValue(r, typ)
			js, err := ToJSON(typ, v)
			if err != nil {
				t.Fatalf("ToJSON: %v", err)
			}
			wire := reencode(t, js)
			if err := sch.Validate(wire); err != nil {
				b, _ := json.Marshal(js)
				sb, _ := json.Marshal(schema)
				t.Fatalf("value %s does not match schema %s: %v", b, sb, err)
			}
			back, err := FromJSON(typ, wire, "$")
			if err != nil {
				t.Fatalf("FromJSON: %v", err)
			}
			if !reflect.DeepEqual(normBytes(back), normBytes(v)) {
				t.Fatalf("round trip of %#v gave %#v", v, back)
			}
		}
	}
}

// normBytes treats empty byte slices alike (nil vs []byte{}).
func normBytes(v Value) Value {
	switch x := v.(type) {
	case []byte:
		if len(x) == 0 {
			return []byte{}
		}
	case []Value:
		out := make([]Value, len(x))
		for i, e := range x {
			out[i] = normBytes(e)
		}
		return out
	case Record:
		out := make(Record, len(x))
		for i, e := range x {
			out[i] = normBytes(e)
		}
		return out
	case Tuple:
		out := make(Tuple, len(x))
		for i, e := range x {
			out[i] = normBytes(e)
		}
		return out
	case Option:
		return Option{x.Some, normBytes(x.Val)}
	case Variant:
		return Variant{x.Case, normBytes(x.Val)}
	case Result:
		return Result{x.IsErr, normBytes(x.Val)}
	}
	return v
}

var _ = bytes.MinRead

// TestMalformedTypesDoNotPanic: hand-built types with missing parts (as a
// binary reader might produce) give errors, not panics.
func TestMalformedTypesDoNotPanic(t *testing.T) {
	types := []*Type{
		nil,
		{Kind: KindList},
		{Kind: KindMap},
		{Kind: KindOption},
		{Kind: KindRecord, Fields: []Field{{Name: "a"}}},
		{Kind: KindTuple, Tuple: []*Type{nil}},
		{Kind: KindVariant, Cases: []Case{{Name: "x"}}},
		{Kind: KindOwn},
		{Kind: KindInvalid},
	}
	inputs := []any{nil, int64(1), "s", []any{nil}, map[string]any{"a": nil}, map[string]any{"tag": "x"}}
	for _, typ := range types {
		_ = JSONSchema(typ)
		_ = JSONCompatible(typ)
		for _, in := range inputs {
			if v, err := FromJSON(typ, in, "$"); err == nil {
				_, _ = ToJSON(typ, v)
			}
			_, _ = ToJSON(typ, in)
		}
	}
	f := &Func{Name: "f", Params: []Param{{Name: "p"}}, Result: &Type{Kind: KindResult}}
	_ = FuncParamsSchema(f)
	_ = FuncResultSchema(f)
	_, _ = FuncParamsFromJSON(f, map[string]any{"p": nil})
	if _, _, _, err := FuncResultToJSON(f, "not a result"); err == nil {
		t.Error("a non-Result value for a result function should fail")
	}
}

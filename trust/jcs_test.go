package trust

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical forms.
func TestNumberSerializationRFC8785(t *testing.T) {
	cases := []struct{ bits, want string }{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	}
	for _, c := range cases {
		t.Run(c.bits, func(t *testing.T) {
			got, err := AppendNumber(nil, bitsToFloat(t, c.bits))
			if err != nil || string(got) != c.want {
				t.Fatalf("AppendNumber(%s) = %q, %v; want %q", c.bits, got, err, c.want)
			}
		})
	}
	for _, bad := range []string{"7fffffffffffffff", "7ff0000000000000", "fff0000000000000"} {
		if _, err := AppendNumber(nil, bitsToFloat(t, bad)); err == nil {
			t.Errorf("AppendNumber(%s): want an error for NaN/Infinity", bad)
		}
	}
}

func bitsToFloat(t testing.TB, h string) float64 {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 8 {
		t.Fatalf("bad hex %q", h)
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

// testdata/es_numbers.txt holds random doubles printed by node's String().
func TestNumberSerializationMatchesECMAScript(t *testing.T) {
	f, err := os.Open("testdata/es_numbers.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		bits, want, _ := strings.Cut(line, " ")
		got, err := AppendNumber(nil, bitsToFloat(t, bits))
		if err != nil || string(got) != want {
			t.Errorf("%s: got %q, %v; want %q", bits, got, err, want)
		}
		n++
	}
	if n < 500 {
		t.Fatalf("only %d numbers checked", n)
	}
}

func TestCanonicalize(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{ // RFC 8785 §3.2.2
			"rfc-3.2.2",
			`{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`,
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{ // RFC 8785 §3.2.3: sorting by UTF-16 code units
			"rfc-3.2.3",
			`{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{"nested", `{"b":{"z":1,"a":[{"y":2,"x":1}]},"a":-0.0}`, `{"a":0,"b":{"a":[{"x":1,"y":2}],"z":1}}`},
		{"empty", ` { } `, `{}`},
		{"empty-array", `[ ]`, `[]`},
		{"scalar", `"x\u2028y"`, "\"x\u2028y\""},
		{"big-int", `[9007199254740993, 1e21, 123456789012345678901]`, `[9007199254740992,1e+21,123456789012345680000]`},
		{"controls", `"\u0001\u001f\b\t\f"`, `"\u0001\u001f\b\t\f"`},
		{"prefix-order", `{"ab":1,"a":2,"":3}`, `{"":3,"a":2,"ab":1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
			again, err := Canonicalize(got)
			if err != nil || string(again) != string(got) {
				t.Fatalf("not idempotent: %s, %v", again, err)
			}
		})
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"duplicate", `{"a":1,"a":2}`, "duplicate member"},
		{"lone-high", `"\ud800"`, "lone surrogate"},
		{"lone-low", `"\udc00x"`, "lone surrogate"},
		{"bad-utf8", "\"\xff\"", "UTF-8"},
		{"trailing", `{} x`, "trailing"},
		{"overflow", `1e400`, "double"},
		{"leading-zero", `01`, "trailing"},
		{"raw-control", "\"a\nb\"", "control character"},
		{"bad-escape", `"\x"`, "invalid escape"},
		{"truncated", `{"a":`, "end of input"},
		{"deep", strings.Repeat("[", 300) + strings.Repeat("]", 300), "nested deeper"},
		{"nan", `NaN`, "unexpected character"},
		{"unterminated", `"abc`, "unterminated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Canonicalize([]byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Canonicalize(%q) error = %v, want containing %q", c.in, err, c.want)
			}
		})
	}
}

func TestCanonicalizeValueMatchesText(t *testing.T) {
	in := `{"name":"x","n":42,"f":1.5,"arr":[true,null,"é"],"obj":{"b":1,"a":2}}`
	var v map[string]any
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	v["n"] = int64(42)
	a, err := CanonicalizeValue(v)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Canonicalize([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Fatalf("value form %s != text form %s", a, b)
	}
	if _, err := CanonicalizeValue(map[string]any{"big": int64(1) << 60}); err == nil {
		t.Fatal("want an error for an integer beyond 2^53")
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x"],"b":null}`, `"\ud83d\ude00"`, `[1e30,-0,0.1]`, `{"":{}}`, `{"a":1,"a":1}`, `tru`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Canonicalize(data)
		// CheckIJSON is the same parser building nothing: the same verdict.
		if cerr := CheckIJSON(data); fmt.Sprint(cerr) != fmt.Sprint(err) {
			t.Fatalf("%q: CheckIJSON says %v, Canonicalize %v", data, cerr, err)
		}
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("canonical output is not JSON: %q", out)
		}
		again, err := Canonicalize(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not idempotent: %q -> %q (%v)", out, again, err)
		}
		// ... and means what the input meant.
		var in, canon any
		if json.Unmarshal(data, &in) == nil {
			if err := json.Unmarshal(out, &canon); err != nil || !reflect.DeepEqual(in, canon) {
				t.Fatalf("%q canonicalized to %q: %#v vs %#v (%v)", data, out, in, canon, err)
			}
		}
	})
}

func BenchmarkCanonicalize(b *testing.B) {
	data, err := os.ReadFile("testdata/card.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Canonicalize(data); err != nil {
			b.Fatal(err)
		}
	}
}

package wit

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestF32MaxAsPrinted: the largest f32, as float32 printers write it
// (encoding/json for a float32, strconv with bitSize 32, Rust's f32::MAX:
// 3.4028235e+38), was refused as "out of range for f32" by FromJSON and by
// the schema's maximum (math.MaxFloat32 as a float64,
// 3.4028234663852886e+38), so a client could not send it. Both accept it
// now and it arrives as math.MaxFloat32; a larger value is still refused.
func TestF32MaxAsPrinted(t *testing.T) {
	f32 := Primitive(KindF32)
	b, err := json.Marshal(float32(-math.MaxFloat32))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "-3.4028235e+38" {
		t.Fatalf("encoding/json wrote %s", b)
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{f, math.MaxFloat32, json.Number(strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32))} {
		got, err := FromJSON(f32, v, "$.x")
		if err != nil {
			t.Errorf("%v: %v", v, err)
			continue
		}
		if x := got.(float32); math.Abs(float64(x)) != math.MaxFloat32 {
			t.Errorf("%v became %v", v, x)
		}
	}
	s := JSONSchema(f32)
	if mx, _ := s["maximum"].(float64); mx < 3.4028235e38 || float32(mx) != math.MaxFloat32 {
		t.Errorf("schema maximum %v", s["maximum"])
	}
	if mn, _ := s["minimum"].(float64); mn > f {
		t.Errorf("schema minimum %v refuses %v", s["minimum"], f)
	}
	for _, v := range []any{3.5e38, -3.41e38} {
		if _, err := FromJSON(f32, v, "$.x"); err == nil {
			t.Errorf("%v accepted for f32", v)
		}
	}
}

// TestValidateExternName: the names components use pass; names
// with spaces, newlines, ';', bad versions or annotations do not.
func TestValidateExternName(t *testing.T) {
	for _, n := range []string{"run", "hello", "[method]r.f", "[constructor]r", "[static]r.new", "[async]f",
		"[async method]r.f", "wasi:cli/stdout@0.2.0", "samples:hello/greet@0.1.0", "aios:sdk/log@0.1.0",
		"wasi:http/types@0.2.0-rc-2023-11-10", "a:b:c/d/e", "tool-handler", "sha-256", "HTTP-client"} {
		if err := ValidateExternName(n, false); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	for _, n := range []string{"unlocked-dep=<a:b@{>=1.0.0}>", "url=<https://x/y.wasm>", "integrity=<sha256-abc>"} {
		if err := ValidateExternName(n, true); err != nil {
			t.Errorf("import %q: %v", n, err)
		}
		if err := ValidateExternName(n, false); err == nil {
			t.Errorf("export %q passed", n)
		}
	}
	for _, n := range []string{"", "Run Now", "a\nb", "a;b", "a_b", "[method]r", "[bogus]f", "[method]r.", "wasi:cli",
		"wasi:/x", "wasi:cli/stdout@", "wasi:cli/stdout@0.2.0\n", "cli/stdout", ":x/y", "url=<a\n>"} {
		if err := ValidateExternName(n, true); err == nil {
			t.Errorf("%q passed", n)
		}
	}
}

// TestS64BelowRangeRounded: JSON integers below s64's minimum
// (-9223372036854775809 … -9223372036854776832) decode as float64 (the
// host's abi.UnmarshalJSONValue keeps only int64 and uint64 exact) and
// round to exactly -2^63, which FromJSON took as s64's minimum: the
// guest got another number than the caller sent. They are refused now;
// -9223372036854775808 itself, which decodes as an int64, still passes.
func TestS64BelowRangeRounded(t *testing.T) {
	s64 := Primitive(KindS64)
	for _, lit := range []string{"-9223372036854775809", "-9223372036854776832"} {
		var v any
		if err := abi.UnmarshalJSONValue([]byte(lit), &v); err != nil {
			t.Fatal(err)
		}
		if got, err := FromJSON(s64, v, "$.x"); err == nil {
			t.Errorf("%s (decoded as %T %v) became %v", lit, v, v, got)
		}
	}
	var v any
	if err := abi.UnmarshalJSONValue([]byte("-9223372036854775808"), &v); err != nil {
		t.Fatal(err)
	}
	if got, err := FromJSON(s64, v, "$.x"); err != nil || got != int64(math.MinInt64) {
		t.Errorf("MinInt64: %v %v", got, err)
	}
	if _, err := FromJSON(s64, json.Number("-9223372036854775809"), "$.x"); err == nil {
		t.Errorf("json.Number below the range passed")
	}
}

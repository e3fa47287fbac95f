package wit

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/schema"
)

func probeDecode(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := abi.UnmarshalJSONValue([]byte(text), &v); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

// probeWire passes a value through JSON text as the host sends it.
func probeWire(t *testing.T, v any) (any, string) {
	t.Helper()
	b, err := json.Marshal(abi.ForJSON(v))
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	return probeDecode(t, string(b)), string(b)
}

// TestF32ResultShortest: an f32 a component returns is rendered as
// the shortest decimal that reads back as that f32 (0.1, as encoding/json,
// Rust's serde and wasm-tools write an f32), not as the float64 nearest
// its binary value (0.10000000149011612): a caller sending 0.1 to a tool
// that echoes an f32 got 0.10000000149011612 back.
func TestF32ResultShortest(t *testing.T) {
	f32 := Primitive(KindF32)
	for _, text := range []string{"0.1", "1.1", "-2.7", "3.4028235e+38", "-3.4028235e+38", "1e-45", "16777217", "0", "-0", "100", "1.5"} {
		in := probeDecode(t, text)
		v, err := FromJSON(f32, in, "$.x")
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		out, err := ToJSON(f32, v)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		_, got := probeWire(t, out)
		want, _ := json.Marshal(v.(float32)) // encoding/json's shortest f32 form
		if got != string(want) {
			t.Errorf("f32 %s came back as %s, want %s", text, got, want)
		}
		back, err := FromJSON(f32, probeDecode(t, got), "$.x")
		if err != nil || math.Float32bits(back.(float32)) != math.Float32bits(v.(float32)) {
			t.Errorf("f32 %s: %s reads back as %v (%v), want %v", text, got, back, err, v)
		}
		sch, err := schema.Compile("f32", JSONSchema(f32))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(probeDecode(t, got)); err != nil {
			t.Errorf("f32 %s: %s refused by the f32 schema: %v", text, got, err)
		}
	}
}

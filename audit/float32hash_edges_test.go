package audit

import "testing"

// TestFloat32HashesAsEncodingJSONWritesIt: CanonicalJSON says a struct
// and the equivalent map encode the same, and a float32 as
// encoding/json writes it (the shortest decimal that reads back as that
// float32, 0.1). A float32 in a map[string]any or []any was widened to
// float64 and written 0.10000000149011612, while the same float32 in a
// struct field went through encoding/json and was written 0.1: the two
// hashed differently.
func TestFloat32HashesAsEncodingJSONWritesIt(t *testing.T) {
	type s struct {
		F float32 `json:"f"`
	}
	a, err := CanonicalJSON(map[string]any{"f": float32(0.1)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := CanonicalJSON(s{F: 0.1})
	if string(a) != `{"f":0.1}` || string(b) != `{"f":0.1}` {
		t.Errorf("map %s, struct %s; want both {\"f\":0.1}", a, b)
	}
	if c, _ := CanonicalJSON([]any{float32(16777216), float32(3.4e38), float32(-1.5e-45)}); string(c) != `[16777216,3.4e+38,-1e-45]` {
		t.Errorf("got %s", c)
	}
}

package abi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// color is an enum written by name, as encoding/json writes it.
type color int

func (c color) MarshalText() ([]byte, error) { return []byte([]string{"red", "green"}[c]), nil }

// uuidLike is a fixed-size byte array written as text (google/uuid's UUID).
type uuidLike [4]byte

func (u uuidLike) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%x", u[:]), nil }

// level writes itself with MarshalJSON.
type level string

func (l level) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"level": string(l)})
}

// hexBytes is a named byte slice written as hex text.
type hexBytes []byte

func (h hexBytes) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%x", []byte(h)), nil }

// flags is a map with bool keys that writes itself.
type flags map[bool]string

func (f flags) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]string{"yes": f[true]}) }

// TestNormalizeHonoursMarshalers: Normalize, which makes a native tool's
// result canonical (the host's checkResult; native.Typed's, documented as
// encoding/json's rules), read a value that is not a struct by its Go kind
// before asking whether it writes itself: an enum with MarshalText came
// out as its number (1, not "green"), a UUID-like [16]byte with
// MarshalText as an array of integers, a string type with MarshalJSON as
// the bare string, a named []byte with MarshalText was refused as raw
// bytes, and a map with integer keys — which encoding/json writes as an
// object — was refused ("map key type int is not string"). The same
// values inside a struct went through encoding/json and came out right.
// Each is now written as encoding/json writes it.
func TestNormalizeHonoursMarshalers(t *testing.T) {
	var nilUUID *uuidLike
	for _, c := range []struct {
		name string
		in   any
	}{
		{"enum", map[string]any{"c": color(1)}},
		{"uuid", []any{uuidLike{1, 2, 3, 4}}},
		{"marshalJSON", map[string]any{"l": level("warn")}},
		{"hexBytes", map[string]any{"h": hexBytes{0xde, 0xad}}},
		{"intKeys", map[int]string{1: "one", 20: "twenty"}},
		{"textKeys", map[color]int{0: 1, 1: 2}},
		{"enumSlice", []color{0, 1}},
		{"nilPointer", map[string]any{"u": nilUUID}},
		{"pointer", map[string]any{"u": &uuidLike{9, 9, 9, 9}}},
		{"mapMarshaler", flags{true: "y"}},
	} {
		b, err := json.Marshal(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var want any
		if err := UnmarshalJSONValue(b, &want); err != nil {
			t.Fatal(err)
		}
		got, err := Normalize(Copy(c.in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Normalize = %#v, %v; want %#v, as encoding/json writes it (%s)", c.name, got, err, want, b)
		}
	}
	// A map key encoding/json cannot write is still refused, naming it.
	if _, err := Normalize(map[bool]int{true: 1}); err == nil {
		t.Error("map[bool]int: accepted")
	}
}

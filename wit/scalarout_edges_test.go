package wit

import (
	"strings"
	"testing"
)

// TestToJSONRefusesNonScalarText: a char Value that is not a Unicode
// scalar value (a surrogate, above U+10FFFF, negative) and a string Value
// that is not UTF-8 have no JSON form. ToJSON wrote the char as U+FFFD and
// passed the string on, which encoding/json writes with U+FFFD in place of
// the bad bytes: a value the component never returned, without a word
// (FromJSON refuses both). They are refused naming the path, as NaN is.
func TestToJSONRefusesNonScalarText(t *testing.T) {
	char, str := Primitive(KindChar), Primitive(KindString)
	list := &Type{Kind: KindList, Elem: char}
	for _, c := range []struct {
		t    *Type
		v    Value
		want string
	}{
		{char, rune(0xD800), "$: U+D800 (char) is not a Unicode scalar value"},
		{char, rune(0x110000), "$: U+110000 (char) is not a Unicode scalar value"},
		{char, rune(-1), "$: -1 (char) is not a Unicode scalar value"},
		{list, []Value{'a', rune(0xDFFF)}, "$[1]: U+DFFF (char) is not a Unicode scalar value"},
		{str, "ok\xffno", "$: string is not valid UTF-8 (byte 0xff at offset 2)"},
		{&Type{Kind: KindMap, Key: str, Elem: str}, []Value{Tuple{"a", "b"}, Tuple{"\xc3", "d"}}, "$[1]: string is not valid UTF-8 (byte 0xc3 at offset 0)"},
	} {
		got, err := ToJSON(c.t, c.v)
		if err == nil {
			t.Errorf("%s %#v became %#v", typeName(c.t), c.v, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s %#v: error %q, want it to start with %q", typeName(c.t), c.v, err, c.want)
		}
	}
	for _, c := range []struct {
		t *Type
		v Value
	}{{char, rune(0xFFFD)}, {char, rune(0x10FFFF)}, {char, rune(0)}, {str, "é\uFFFD"}} {
		if got, err := ToJSON(c.t, c.v); err != nil {
			t.Errorf("%s %#v: %v", typeName(c.t), c.v, err)
		} else if back, err := FromJSON(c.t, got, "$"); err != nil || back != c.v {
			t.Errorf("%s %#v: back as %#v, %v", typeName(c.t), c.v, back, err)
		}
	}
}

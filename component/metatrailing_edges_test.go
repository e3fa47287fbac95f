package component

import (
	"strings"
	"testing"
)

// TestMetaTrailingBracket: the aios-provider section's JSON was checked for
// data after the object with json.Decoder.More, which is false before a
// closing bracket or brace, so `{"id":"org.x.y"}],"capabilities":["Clock"]}`
// was read as {"id":"org.x.y"}: the capabilities after the stray bracket
// were dropped without a word. Anything but white space after the object is
// refused now, naming where.
func TestMetaTrailingBracket(t *testing.T) {
	section := func(data string) []byte {
		name := MetaSection
		body := append([]byte{byte(len(name))}, name...)
		body = append(body, data...)
		mod := []byte("\x00asm\x01\x00\x00\x00")
		mod = append(mod, 0, byte(len(body))) // custom section; short enough for a one-byte LEB128
		return append(mod, body...)
	}
	for _, data := range []string{`{"id":"org.x.y"}],"capabilities":["Clock"]}`, `{"id":"org.x.y"}}`, `{"id":"org.x.y"} x`} {
		m, err := readMeta([][]byte{section(data)})
		if err == nil || !strings.Contains(err.Error(), "data after the JSON object") {
			t.Errorf("readMeta(%s) = %+v, %v; want an error saying there is data after the object", data, m, err)
		}
	}
	m, err := readMeta([][]byte{section("{\"id\":\"org.x.y\"} \n")})
	if err != nil || m.ID != "org.x.y" {
		t.Fatalf("readMeta with trailing white space = %+v, %v; want id org.x.y", m, err)
	}
}

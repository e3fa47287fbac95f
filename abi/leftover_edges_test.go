package abi

import (
	"strings"
	"testing"
)

// A MessagePack message the decoder refused read "msgpack: msgpack:
// unexpected code=a3 decoding map length": the codec put its prefix before
// the decoder's own. The prefix is there once.
func TestMsgpackErrorPrefixOnce(t *testing.T) {
	for _, b := range [][]byte{
		{0xa3, 'a', 'b', 'c'},                    // a string, not a map
		{0x92, 1, 2},                             // an array
		{0x81, 0xa2, 'i', 'd', 0x81, 0x01, 0x02}, // id: a map
	} {
		var e Envelope
		err := MsgPack.Unmarshal(b, &e)
		if err == nil {
			t.Errorf("% x accepted", b)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "msgpack: ") || strings.Contains(msg, "msgpack: msgpack:") {
			t.Errorf("% x: %q; want one \"msgpack: \" prefix", b, msg)
		}
	}
}

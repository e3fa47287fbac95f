package wasm

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

// FuzzDecodeResult: a guest's ToolResult is untrusted bytes. decodeResult
// never panics, reports at most one of a guest error and a protocol error,
// and the two codecs mean the same: a JSON ToolResult that decodes gives the
// same value (or guest error) as the same ToolResult in MessagePack.
func FuzzDecodeResult(f *testing.F) {
	for _, s := range []string{
		`{"value":{"a":[1,2.5,"x",null,true]}}`,
		`{"value":null}`, `{}`, `{"error":null,"value":3}`,
		`{"error":{"code":"NotFound","message":"no such file","data":{"path":"/x"}}}`,
		`{"error":{"code":"Weird","message":"m"}}`,
		`{"error":{"code":"","message":"m"}}`, `{"error":{"code":"X","message":7}}`,
		`{"error":"boom"}`, `{"Value":5}`, `{"value":1e400}`, `{"value":-9223372036854775809}`,
		`[1]`, `7`, `{"value":"\ud800"}`, ` {"value":1} `, `{"value":1}x`,
	} {
		f.Add([]byte(s))
	}
	val, _ := wire.AppendResult(nil, map[string]any{"k": []any{int64(1), "v"}})
	f.Add(val)
	f.Add(wire.AppendError(nil, "ProviderError", "boom", map[string]any{"n": int64(1)}))
	f.Add([]byte{0x81, 0xa5, 'v', 'a', 'l', 'u', 'e', 0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0}) // NaN
	f.Add([]byte{0x81, 0xa5, 'v', 'a', 'l', 'u', 'e', 0xc4, 1, 'x'})                       // bin
	f.Add(wire.AppendError(nil, "ProviderError", "bad \xff byte", nil))                    // not UTF-8
	f.Fuzz(func(t *testing.T, data []byte) {
		v, guestErr, protoErr := decodeResult(data)
		if guestErr != nil && protoErr != nil {
			t.Fatalf("both a guest error %v and a protocol error %v", guestErr, protoErr)
		}
		for _, e := range []*abi.ToolError{guestErr, protoErr} {
			if e != nil && (e.Code == "" || (e == protoErr && e.Message == "")) {
				t.Fatalf("incomplete error %+v", e)
			}
		}
		if guestErr != nil && (!abi.ValidUTF8(string(guestErr.Code)) || !abi.ValidUTF8(guestErr.Message)) {
			t.Fatalf("guest error %+v is not UTF-8 text", guestErr)
		}
		if protoErr != nil || len(data) == 0 || data[0] != '{' {
			return
		}
		c, err := abi.DetectCodec(data)
		if err != nil || c != abi.JSON {
			return
		}
		raw, dropped, err := jsonResultMap(data)
		if _, notText := err.(*notTextError); notText && guestErr != nil && guestErr.Code == abi.InvalidResult {
			return // a value that is not Unicode text: the guest's InvalidResult
		}
		if err != nil {
			t.Fatalf("decodeResult accepted %q, jsonResultMap refuses it: %v", data, err)
		}
		if dropped != "" {
			if guestErr == nil || guestErr.Data != nil || !strings.Contains(guestErr.Message, dropped) {
				t.Fatalf("JSON %q: error data that is not Unicode text (%s) not dropped saying so: %+v", data, dropped, guestErr)
			}
			return // the message says why: a MessagePack guest's is dropped by the pipeline
		}
		mp, err := wire.AppendValue(nil, raw)
		if err != nil {
			t.Fatalf("the decoded JSON ToolResult %q does not encode as MessagePack: %v", data, err)
		}
		v2, guestErr2, protoErr2 := decodeResult(mp)
		if protoErr2 != nil {
			if protoErr2.Code == abi.TooLarge {
				return // the codecs' decode budgets are costed apart
			}
			t.Fatalf("JSON %q decodes; as MessagePack %x: %v", data, mp, protoErr2)
		}
		if !reflect.DeepEqual(v, v2) || !reflect.DeepEqual(guestErr, guestErr2) {
			t.Fatalf("JSON %q: %#v %+v; as MessagePack: %#v %+v", data, v, guestErr, v2, guestErr2)
		}
	})
}

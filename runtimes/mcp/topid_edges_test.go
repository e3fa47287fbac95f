package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// decodedIDUsable is topIDUsable's rule read by decoding: msg's top-level
// id (the last, as encoding/json keeps it) is a string or a number.
func decodedIDUsable(msg []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(msg, &top) != nil {
		return false
	}
	id := bytes.TrimSpace(top["id"])
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
}

// TestTopIDUsable: answerWithoutID decoded every message of every server
// (up to 64 KiB) to find its id, before the go-sdk decoded it again; a
// scan that allocates nothing now tells the messages whose top-level id is
// a string or a number, and only the others are decoded. It agrees with
// decoding, and says "decode to know" for what it does not read plainly.
func TestTopIDUsable(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{}}`, true},
		{` { "jsonrpc" : "2.0" , "id" : "a\"b" , "result" : {"id":null} } `, true},
		{`{"jsonrpc":"2.0","result":{"id":5,"x":[1,{"id":"s"}]},"id":-3}`, true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m","data":{"id":4}}}`, false},
		{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"data":"\"id\":1"}`, false},
		{`{"jsonrpc":"2.0","id":{"a":1},"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":[7],"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":true,"result":{}}`, false},
		{`{"id":1,"jsonrpc":"2.0","id":null,"result":{}}`, false}, // the last id counts
		{`{"jsonrpc":"2.0","\u0069d":5,"result":{}}`, false},      // an escaped name: decoded to know
		{`[{"id":1}]`, false},
		{`{}`, false},
	} {
		if got := topIDUsable([]byte(c.msg)); got != c.want {
			t.Errorf("%s: %v, want %v", c.msg, got, c.want)
		}
		if topIDUsable([]byte(c.msg)) && !decodedIDUsable([]byte(c.msg)) {
			t.Errorf("%s: usable by the scan, not by decoding", c.msg)
		}
	}
}

// FuzzTopIDUsable: a message the scan finds a usable id in has one when
// decoded (a message it does not find one in is decoded, so a miss costs
// only time).
func FuzzTopIDUsable(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":7,"result":{}}`, `{"id":null,"error":{"code":1,"message":"x"}}`,
		`{"a":"\\\"","id":"x"}`, `{"id":[1],"b":{"c":[{"id":2}]}}`, `{"id":-0.5e3 ,"x":true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		if !json.Valid(msg) {
			return
		}
		if topIDUsable(msg) && !decodedIDUsable(msg) {
			t.Fatalf("%s: usable by the scan, not by decoding", msg)
		}
	})
}

// typicalAnswer is a tools/call answer of about 2 KB.
var typicalAnswer = []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"` + string(bytes.Repeat([]byte("lorem ipsum "), 160)) + `"}],"isError":false}}`)

// BenchmarkAnswerWithoutID: what each answer of a server costs the check
// for a missing id (Scan), against the decoding it did before (Decode).
func BenchmarkAnswerWithoutID(b *testing.B) {
	b.Run("Scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := answerWithoutID(typicalAnswer); ok {
				b.Fatal("an answer with an id taken for one without")
			}
		}
	})
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !decodedIDUsable(typicalAnswer) {
				b.Fatal("no id decoded")
			}
		}
	})
}

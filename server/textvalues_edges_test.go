package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestLoneSurrogateIsParseError: an escaped lone surrogate ("\ud800",
// half of a UTF-16 pair) has no Unicode form, as an invalid UTF-8 byte
// has none: encoding/json read it as U+FFFD, so the arguments
// {"\ud800":1,"\udc00":2} reached the tool as one member ({"�":2}) and a
// value was lost without a word. It is a parse error naming the escape; a
// surrogate pair (an emoji) is served.
func TestLoneSurrogateIsParseError(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":{"\ud800":1,"\udc00":2}}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"value":"a\uDC00"}}}`,
	} {
		var m map[string]any
		if err := json.Unmarshal(rawLine(t, ts, line), &m); err != nil {
			t.Fatal(err)
		}
		if errCode(m) != -32700 || !strings.Contains(strings.ToLower(fmt.Sprint(m["error"])), `\udc00`) && !strings.Contains(fmt.Sprint(m["error"]), `\ud800`) {
			t.Fatalf("reply to %s: %v; want -32700 naming the lone surrogate", line, m)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(rawLine(t, ts, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"value":"\ud83d\ude00"}}}`), &m); err != nil {
		t.Fatal(err)
	}
	res, _ := m["result"].(map[string]any)
	if !reflect.DeepEqual(res["value"], map[string]any{"value": "😀"}) {
		t.Fatalf("a surrogate pair: %v", m)
	}
}

package abi

import (
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// TestJSONWrongTypeNamesIndex: a JSON message whose member had the wrong
// type inside an array was named by encoding/json's field path, which
// leaves out the index: a guest's ToolRegister with "idempotent": "yes" in
// its 12th tool was refused as `member "tools.idempotent" is a JSON
// string`, saying not which tool. The member is named by its path with
// the index, `tools[1].idempotent`, as unknown members are.
func TestJSONWrongTypeNamesIndex(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"format":1,"tools":[{"name":"a"},{"name":"b","idempotent":"yes"}]}`, `member "tools[1].idempotent" is a JSON string`},
		{`{"format":1,"tools":[{"name":"a","tags":["x"]},{"name":"b","tags":["y",{"z":1}]}]}`, `member "tools[1].tags[1]" is a JSON object`},
		{`{"format":1,"provider":{"id":"x","capabilities":"CallTool(*)"}}`, `member "provider.capabilities" is a JSON string`},
	} {
		var reg ToolRegister
		err := JSON.Unmarshal([]byte(c.in), &reg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.in, err, c.want)
		}
	}
}

// TestMsgPackWrongTypeNamesMember: a MessagePack message (the C and Rust
// samples' and the Go SDK's codec) with a member of the wrong type named
// no member at all: a guest's ToolRegister with "idempotent": "yes" was
// refused as "msgpack: invalid code=a3 decoding bool", and a provider id
// that is a number as "invalid code=5 decoding string/bytes length". The
// member is named by its path, as in JSON, the decoder's words after it.
func TestMsgPackWrongTypeNamesMember(t *testing.T) {
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"format": 1, "tools": []any{map[string]any{"name": "a"}, map[string]any{"name": "b", "idempotent": "yes"}}},
			`msgpack: member "tools[1].idempotent" is a string, which is not what it must be (a boolean)`},
		{map[string]any{"format": 1, "provider": map[string]any{"id": 5}},
			`msgpack: member "provider.id" is a number, which is not what it must be (a string)`},
	} {
		b, err := msgpack.Marshal(c.in)
		if err != nil {
			t.Fatal(err)
		}
		var reg ToolRegister
		err = MsgPack.Unmarshal(b, &reg)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v; want %q", c.in, err, c.want)
		}
	}
}

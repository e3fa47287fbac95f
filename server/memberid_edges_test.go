package server

import (
	"strings"
	"testing"
)

// A request whose members are wrong in a way encoding/json lets pass (one
// in another case such as "pArAms", one given twice) is refused -32600,
// and was answered with id null even when its id was not in doubt, so the
// client could match the answer to none of its requests (found by
// FuzzHandleMessage, whose property is that a request with a valid id and
// "jsonrpc": "2.0" is answered with that id). The id is echoed unless it
// is itself in doubt ("ID", "id" twice) or the message is a response.
func TestMemberProblemAnsweredWithItsID(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, tc := range []struct {
		msg, id, says string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"aios/registry.info","pArAms":{"adapter_id":"x"}}`, "7", `did you mean \"params\"`},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/list","method":"initialize"}`, `"a"`, `member \"method\" is given twice`},
		{`{"jsonrpc":"2.0","id":1,"ID":2,"method":"tools/list"}`, "null", `did you mean \"id\"`},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}`, "null", `member \"id\" is given twice`},
		{`{"jsonrpc":"2.0","id":3,"result":1,"Method":"x"}`, "null", `did you mean \"method\"`},
	} {
		reply := string(rawLine(t, ts, tc.msg))
		if !strings.Contains(reply, `"id":`+tc.id+`,`) || !strings.Contains(reply, `"code":-32600`) || !strings.Contains(reply, tc.says) {
			t.Errorf("%s: %s; want -32600 with id %s saying %s", tc.msg, reply, tc.id, tc.says)
		}
	}
	// In a batch alike, also where the answers pass
	// max_batch_answer_bytes (a member not run is answered TooLarge
	// with the id handleOne would give).
	reply := string(rawLine(t, ts, `[{"jsonrpc":"2.0","id":9,"method":"initialize","Params":{}}]`))
	if !strings.Contains(reply, `"id":9,`) {
		t.Errorf("batch member with Params: %s; want its id 9", reply)
	}
	small := newTestServer(t, "  max_batch_answer_bytes: 10\n", false)
	reply = string(rawLine(t, small, `[{"jsonrpc":"2.0","id":1,"method":"initialize"},{"jsonrpc":"2.0","id":2,"method":"initialize","Params":{}},{"jsonrpc":"2.0","id":3,"ID":3,"method":"initialize"}]`))
	if !strings.Contains(reply, `"id":1,`) || !strings.Contains(reply, `"id":2,`) || !strings.Contains(reply, `"id":null,`) {
		t.Errorf("batch past max_batch_answer_bytes: %s; want ids 1, 2 and null", reply)
	}
}

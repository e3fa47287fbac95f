package server

import (
	"strings"
	"testing"
)

// TestUIDWrittenTwiceRefused: server.uids maps a socket peer's uid
// to its agent. Two keys naming one uid ("1001" and "01001") were both
// taken, and the agent the uid got was whichever Go's map iteration set
// last: the same
// peer was "reader" on one start and "cli" (every grant) on the next. The
// second spelling is refused, naming both keys and their agents.
func TestUIDWrittenTwiceRefused(t *testing.T) {
	doc := "agents:\n  cli: {grants: ['CallTool(*)']}\n  reader: {grants: []}\nserver:\n  uids:\n    \"1001\": reader\n    \"01001\": cli\n"
	_, err := LoadConfig(mustParse(t, doc))
	if err == nil {
		t.Fatal("server.uids with 1001 and 01001 was taken: uid 1001's agent is reader or cli by chance")
	}
	for _, w := range []string{"t.yaml:", "1001", "01001", "reader", "cli"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal does not name %q: %v", w, err)
		}
	}
	// One spelling alone is taken.
	if _, err := LoadConfig(mustParse(t, "agents:\n  reader: {grants: []}\nserver:\n  uids: {\"01001\": reader}\n")); err != nil {
		t.Errorf("server.uids with 01001 alone: %v", err)
	}
}

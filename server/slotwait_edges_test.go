package server

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

// TestSlotWaitKeepsTimeout: a tools/call read while all 32 slots of its
// socket connection were taken waited for one without a word, and its
// timeout_ms only started once it had one: a client that asked for an
// answer within 300 ms got none until a slow call ended (here 10 s), then
// the call ran for up to another 300 ms. Its timeout now counts from when
// it was read: once it runs out the call is answered Timeout, saying it
// waited for a slot and did not run, while the others still hold theirs.
func TestSlotWaitKeepsTimeout(t *testing.T) {
	c := fillConnection(t)
	sent := time.Now()
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":"late","method":"tools/call","params":{"name":"slow","timeout_ms":300}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(8 * time.Second)) // slow returns by itself after 10 s
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to a call with timeout_ms 300 while the connection's %d slots were taken: %v", maxConcurrentPerConn, err)
	}
	if waited := time.Since(sent); waited < 300*time.Millisecond {
		t.Errorf("answered after %v, before its timeout", waited)
	}
	for _, want := range []string{`"id":"late"`, "Timeout", "timeout_ms", "slot", "did not run", "slow"} {
		if !strings.Contains(line, want) {
			t.Errorf("answer %s does not say %q", line, want)
		}
	}
}

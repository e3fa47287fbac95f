package server

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestSlotWaitTimeoutRecorded: a tools/call whose timeout_ms ran out while
// it waited for a slot of its socket connection was answered Timeout ("it
// did not run") by the connection loop alone, so it had no audit record
// and no call observer (/metrics) saw it, where every call refused by a
// front end's own limit goes through host.Host.Refuse (docs/pipeline.md:
// "every call, refused or not, gets one audit record"). It is now
// recorded as a refused call of its tool by its agent, code Timeout.
func TestSlotWaitTimeoutRecorded(t *testing.T) {
	ts := newTestServer(t, "", false)
	var mu sync.Mutex
	var seen []host.CallStats
	defer ts.h.OnCall(func(st host.CallStats) {
		mu.Lock()
		seen = append(seen, st)
		mu.Unlock()
	})()
	c, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var b strings.Builder
	for i := range maxConcurrentPerConn {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"r%d","method":"tools/call","params":{"name":"slow"}}`+"\n", i)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	ts.waitSlow(t, maxConcurrentPerConn)
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":"late","method":"tools/call","params":{"name":"slow","arguments":{},"timeout_ms":300}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(8 * time.Second)) // slow returns by itself after 10 s
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to the late call: %v", err)
	}
	if !strings.Contains(line, `"id":"late"`) || !strings.Contains(line, "Timeout") || !strings.Contains(line, "did not run") {
		t.Fatalf("answer %s, want the late call's Timeout saying it did not run", line)
	}
	// The observers run before the answer is written; allow for a
	// loaded machine all the same.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		var got []host.CallStats
		for _, st := range seen {
			if st.Code == abi.Timeout {
				got = append(got, st)
			}
		}
		n := len(seen)
		mu.Unlock()
		if len(got) == 1 {
			if got[0].Tool != "slow" || got[0].Caller != "cli" {
				t.Errorf("recorded %+v, want a call of slow by cli", got[0])
			}
			return
		}
		if len(got) > 1 || time.Now().After(deadline) {
			t.Fatalf("%d Timeout calls recorded (of %d calls seen), want the late one alone", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

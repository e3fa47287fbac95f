package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLeakConnectionsDropped: a server that served many socket and
// HTTP clients which dropped mid-request, left subscriptions and event
// streams open, or half-closed, holds no more goroutines or fds than after
// the first of them (while it is still running: a host serves for hours).
func TestLeakConnectionsDropped(t *testing.T) {
	ts := newTestServer(t, "", true)
	cycle := func() {
		// 1. unix: subscribe, start a slow call, drop the connection.
		c, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, `{"jsonrpc":"2.0","id":1,"method":"aios/registry.subscribe","params":{}}`+"\n")
		fmt.Fprintf(c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n")
		r := bufio.NewReader(c)
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		c.Close()
		// 2. unix: half-closed after a slow call: the peer waits, then goes.
		c2, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c2, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n")
		_ = c2.(*net.UnixConn).CloseWrite()
		time.Sleep(20 * time.Millisecond)
		c2.Close()
		// 3. unix: a partial line, then gone.
		c3, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c3, `{"jsonrpc":"2.0","id":4,"met`)
		c3.Close()
		// 4. HTTP: a slow call whose client gives up.
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.url+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{}}}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		cancel()
		// 5. HTTP: an event stream opened and dropped.
		ctx, cancel = context.WithCancel(context.Background())
		req, _ = http.NewRequestWithContext(ctx, "GET", ts.url+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			buf := make([]byte, 16)
			_, _ = resp.Body.Read(buf)
			cancel()
			resp.Body.Close()
		} else {
			cancel()
		}
	}
	cycle()
	http.DefaultClient.CloseIdleConnections()
	before := testutil.SettleGoroutines(0, time.Second)
	fdBefore := testutil.FDs()
	const n = 30
	for i := 0; i < n; i++ {
		cycle()
	}
	http.DefaultClient.CloseIdleConnections()
	after := testutil.SettleGoroutines(before+3, 30*time.Second) // the bound checked below
	fdAfter := testutil.FDs()
	t.Logf("goroutines %d -> %d, fds %d -> %d", before, after, fdBefore, fdAfter)
	if after > before+3 || fdAfter > fdBefore+3 {
		t.Errorf("after %d dropped clients: goroutines %d -> %d, fds %d -> %d\n%s", n, before, after, fdBefore, fdAfter, testutil.GoroutineDump())
	}
}

// TestLeakResubscribe: a client that subscribes again and again on
// one connection (re-subscribing "to be sure" every so often, as a buggy
// client does for hours) must not make the server hold a goroutine and an
// event queue per subscribe for as long as the connection lives: past a
// bound the subscribe is refused, saying why.
func TestLeakResubscribe(t *testing.T) {
	ts := newTestServer(t, "", false)
	c, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	before := goroutines()
	const n = 500
	refused := ""
	for i := 0; i < n; i++ {
		fmt.Fprintf(c, `{"jsonrpc":"2.0","id":%d,"method":"aios/registry.subscribe","params":{}}`+"\n", i)
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"error"`) && refused == "" {
			refused = line
		}
	}
	// The goroutines of the last requests may still be on their way out.
	after := testutil.SettleGoroutines(before+maxSubscriptionsPerConn+5, 30*time.Second)
	t.Logf("goroutines %d -> %d after %d subscribes on one connection; first refusal: %s", before, after, n, refused)
	if after > before+maxSubscriptionsPerConn+5 {
		t.Errorf("%d subscribes on one connection hold %d goroutines (%d before)", n, after, before)
	}
	if !strings.Contains(refused, "subscriptions") {
		t.Errorf("no subscribe was refused past the bound, or the refusal does not say why: %q", refused)
	}
	// Unsubscribing one makes room again.
	// (Requests on a connection run concurrently: one at a time here.)
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":"u","method":"aios/registry.unsubscribe","params":{"subscription":"sub-1"}}`,
		`{"jsonrpc":"2.0","id":"again","method":"aios/registry.subscribe","params":{}}`,
	} {
		fmt.Fprintf(c, "%s\n", req)
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"error"`) {
			t.Errorf("%s: %s", req, line)
		}
	}
}

// goroutines counts the goroutines after a collection.
func goroutines() int { return testutil.SettleGoroutines(0, 0) }

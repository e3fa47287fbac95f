package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestHTTPClientGoneCancelsCall: an HTTP client that gives up on a
// tools/call (its request context ends, the connection closes) has the
// call cancelled, recorded Cancelled, not run on to its deadline.
func TestHTTPClientGoneCancelsCall(t *testing.T) {
	ts := newTestServer(t, "", true)
	ended := make(chan host.CallStats, 4)
	defer ts.h.OnCall(func(st host.CallStats) { ended <- st })()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.url+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	ts.waitSlow(t, 1)
	gaveUp := time.Now()
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the request answered before the client gave up")
	}
	select {
	case st := <-ended:
		if st.Code != abi.Cancelled {
			t.Errorf("call ended with %q, want Cancelled", st.Code)
		}
		if took := time.Since(gaveUp); took > 2*time.Second {
			t.Errorf("the call ended %v after its client gave up", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call of an HTTP client that gave up was not cancelled")
	}
}

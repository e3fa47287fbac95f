package discovery

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// The periodic re-fetch of the remote cards (every remote_refresh) ran
// under a context of its own (a minute), not ended by Close, which waits
// for it: a remote adapter that did not answer at SIGTERM held the
// host's shutdown for its whole fetch timeout (discovery.remotes[].timeout,
// for each such remote in turn).
func TestCloseEndsRemoteRefresh(t *testing.T) {
	var n atomic.Int32
	hung := make(chan struct{}, 1)
	done := make(chan struct{})
	defer close(done)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			http.NotFound(w, r) // the start's fetch: fails at once
			return
		}
		select {
		case hung <- struct{}{}:
		default:
		}
		select { // a remote that does not answer
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	e := newEnv(t, "remote_refresh: 100ms\nremotes: [{url: "+srv.URL+", allow_unsigned: true, timeout: 8s}]\n", nil)
	select {
	case <-hung:
	case <-time.After(10 * time.Second):
		t.Fatal("the periodic re-fetch did not come")
	}
	start := time.Now()
	if err := e.d.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("Close took %v: it waited for a remote card's fetch to time out", took.Round(time.Millisecond))
	}
}

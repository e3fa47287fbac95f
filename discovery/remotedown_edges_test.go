package discovery

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A remote host that is down failed every re-fetch of its card (every
// remote_refresh, 30 s by default) with the same error, logged at Error
// each time: a peer down for a day wrote 2880 identical error lines. The
// error is said at Error once, and again only when it changes (at Debug
// meanwhile).
func TestRemoteDownSaidOnce(t *testing.T) {
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	var logs lockedBuffer
	e := newEnvWith(t, "remote_refresh: 100ms\nremotes: [{url: "+srv.URL+", allow_unsigned: true}]\n", nil, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	defer e.d.Close()
	deadline := time.Now().Add(20 * time.Second)
	for fetches.Load() < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d fetches of the remote card in 20s", fetches.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = e.d.Close()
	n := 0
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "level=ERROR") && strings.Contains(line, "remote:"+srv.URL) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d fetches of a remote that is down logged %d errors; want 1:\n%s", fetches.Load(), n, logs.String())
	}
}

package discovery

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHangingRemotesFetchedTogether: the cards of discovery.remotes were
// fetched one after the other, so each remote that did not answer held
// every one after it, and the host's start, for its whole timeout: four
// such remotes (timeout 3s) and a good one listed after them took 12 s to
// start, the good one's tools unserved meanwhile, and at every
// remote_refresh again. They are fetched together now: the start takes one
// timeout, and the good remote serves after it.
func TestHangingRemotesFetchedTogether(t *testing.T) {
	done := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a remote that does not answer
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer hang.Close()
	defer close(done)
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"adapter": {"id": "org.test.good", "name": "G", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "g-echo", "name": "Echo", "permission_level": "low"}]}`))
	}))
	defer good.Close()
	var remotes []string
	for i := range 4 {
		// Four URLs of the same listener (a path each: four remotes).
		remotes = append(remotes, fmt.Sprintf("{url: %s/r%d, allow_unsigned: true, timeout: 3s}", hang.URL, i))
	}
	remotes = append(remotes, "{url: "+good.URL+", allow_unsigned: true}")
	start := time.Now()
	e := newEnv(t, "remotes: ["+strings.Join(remotes, ", ")+"]\n", nil)
	took := time.Since(start)
	if e.h.Registry().Provider("org.test.good") == nil {
		t.Fatalf("the good remote is not registered: %v", e.d.Errors())
	}
	errs := e.d.Errors()
	for i := range 4 {
		if msg := errs[fmt.Sprintf("remote:%s/r%d", hang.URL, i)]; !strings.Contains(msg, "within 3s") {
			t.Errorf("hanging remote %d: %q; want it said not received within 3s", i, msg)
		}
	}
	// One after the other: 12 s at least; together about 3 s.
	if took > 9*time.Second {
		t.Fatalf("the start took %v: the remotes' cards were fetched one after the other", took.Round(time.Millisecond))
	}
}

// TestRemoteTimeoutAboveClientTimeout: discovery.remotes[].timeout bounds
// fetching a remote's card, but the HTTP client discovery fetches with
// had a fixed 5 s timeout of its own, which cut every fetch at 5 s: a
// remote given `timeout: 30s` that answered in 6 s was refused "Client.Timeout
// exceeded while awaiting headers", the setting without effect (found by
// p165). A remote's timeout longer than the client's is the fetch's bound
// now; here the client's is 200 ms and the remote answers in 600 ms.
func TestRemoteTimeoutAboveClientTimeout(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(600 * time.Millisecond)
		_, _ = w.Write([]byte(`{"adapter": {"id": "org.test.slow", "name": "S", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "s-echo", "name": "Echo", "permission_level": "low"}]}`))
	}))
	defer slow.Close()
	hc := &http.Client{Timeout: 200 * time.Millisecond}
	rc := RemoteConfig{URL: slow.URL, AllowUnsigned: true, Timeout: 10 * time.Second}
	r, err := FetchRemoteCard(context.Background(), rc, nil, hc)
	if err != nil {
		t.Fatalf("a remote within its timeout (10s) was not fetched: %v", err)
	}
	if r.Card.Adapter.ID != "org.test.slow" {
		t.Fatalf("fetched card %+v", r.Card.Adapter)
	}
	// Its own timeout still bounds it.
	rc.Timeout = 300 * time.Millisecond
	if _, err := FetchRemoteCard(context.Background(), rc, nil, hc); err == nil || !strings.Contains(err.Error(), "within 300ms") {
		t.Fatalf("a remote past its timeout (300ms): %v; want it said not received within 300ms", err)
	}
}

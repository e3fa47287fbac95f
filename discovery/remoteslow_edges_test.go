package discovery

import (
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

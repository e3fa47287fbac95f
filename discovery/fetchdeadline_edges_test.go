package discovery

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestCardFetchDeadlineNamesItsBound: a card fetch cut short by its
// caller's deadline (a refresh's whole minute, which bounds a remote whose
// timeout is longer) was said "not received within <the remote's timeout>
// (discovery.remotes[].timeout)", a bound that had not passed. That is said
// only when the remote's own timeout passed now; otherwise the error is the
// context's.
func TestCardFetchDeadlineNamesItsBound(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a remote that does not answer
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := FetchRemoteCard(ctx, RemoteConfig{URL: srv.URL, AllowUnsigned: true, Timeout: time.Minute}, nil, nil)
	if err == nil || strings.Contains(err.Error(), "within 1m0s") || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("cut short by its caller: %v; want the context's deadline, not the remote's timeout", err)
	}
	_, err = FetchRemoteCard(context.Background(), RemoteConfig{URL: srv.URL, AllowUnsigned: true, Timeout: 300 * time.Millisecond}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "within 300ms (discovery.remotes[].timeout)") {
		t.Fatalf("past its own timeout: %v; want it said", err)
	}
}

package discovery

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A remote adapter that did not answer before the call's deadline (or
// before its caller cancelled) failed "Timeout: context deadline exceeded"
// ("Cancelled: context canceled"), naming neither the remote nor the tool,
// and the host's pipeline keeps a provider's own Timeout as it is. The
// error names the remote adapter, its endpoint and the tool now, with the
// code kept.
func TestRemoteDeadlineErrorNamesRemoteAndTool(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a remote that does not answer
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.hanging", "name": "Hanging", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "h-wait", "name": "Wait", "permission_level": "low"}]}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tc := range []struct {
		code abi.ErrorCode
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{abi.Timeout, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}},
		{abi.Cancelled, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}},
	} {
		ctx, cancel := tc.ctx()
		_, err := p.Call(ctx, &abi.ToolCall{ID: "c", Tool: "h-wait", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
		cancel()
		te := abi.AsToolError(err, abi.Internal)
		if err == nil || te.Code != tc.code || !strings.Contains(te.Message, "org.test.hanging") || !strings.Contains(te.Message, "h-wait") {
			t.Fatalf("call of a remote that does not answer: %v; want %s naming the remote org.test.hanging and the tool h-wait", err, tc.code)
		}
	}
}

// A call of a remote adapter that could not be reached failed
// "Unavailable: remote adapter X at E: Post …: connection refused",
// naming the remote but not the tool that was called. It names the tool
// now.
func TestRemoteUnreachableNamesTool(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.gone", "name": "Gone", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "g-add", "name": "Add", "permission_level": "low"}]}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, url+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "g-add", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
	te := abi.AsToolError(err, abi.Internal)
	if err == nil || te.Code != abi.Unavailable || !strings.Contains(te.Message, "org.test.gone") || !strings.Contains(te.Message, "g-add") {
		t.Fatalf("call of a remote nobody serves: %v; want Unavailable naming the remote org.test.gone and the tool g-add", err)
	}
}

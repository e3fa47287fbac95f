package discovery

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRemoteCallRedirectOffOrigin: a remote adapter's endpoint that
// answers tools/call with a 307 made the host POST the call — its
// arguments, and Go's client keeps the Authorization header when only the
// port or scheme differs — to wherever the Location said: a host its card
// may not reach (checkEndpoints refuses a card whose endpoint names it:
// an Untrusted card holds no Network at all), a loopback service of this
// host, or plain http. Redirects are followed within the endpoint's origin
// only (as the MCP bridge's and the inference client's are); another is
// refused, naming it, and nothing is sent there.
func TestRemoteCallRedirectOffOrigin(t *testing.T) {
	const tok = "rem0te-t0ken-redirect"
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		http.Error(w, "not for you", http.StatusTeapot)
	}))
	defer other.Close()
	// The same listener under another name: another origin (host name).
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/rpc":
			var req struct {
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			if req.Params.Name == "away" {
				http.Redirect(w, r, otherURL+"/rpc", http.StatusTemporaryRedirect)
				return
			}
			http.Redirect(w, r, "/v2/rpc", http.StatusTemporaryRedirect) // same origin: followed
		case "/v2/rpc":
			body, _ := io.ReadAll(r.Body)
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(body, &req)
			res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"value": "here"}})
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(res)
		}
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.redir", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "away", "name": "A", "permission_level": "low"}, {"id": "here", "name": "H", "permission_level": "low"}]}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	call := func(tool string) (any, error) {
		return p.Call(context.Background(), &abi.ToolCall{ID: "a", Tool: tool, Params: map[string]any{"secret": "arg"}, Deadline: time.Now().Add(5 * time.Second)}, nil)
	}
	if v, err := call("here"); err != nil || v != "here" {
		t.Fatalf("a redirect within the endpoint's origin: %v, %v; want it followed", v, err)
	}
	_, err = call("away")
	var te *abi.ToolError
	if !errors.As(err, &te) || !strings.Contains(te.Message, "redirect") || !strings.Contains(te.Message, strings.TrimPrefix(otherURL, "http://")) {
		t.Fatalf("a redirect to another origin: %v; want an error naming the redirect and where it went", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("the call was sent to the redirect's target %d times", n)
	}
}

// TestHostileCardServer: a remote card server that is hostile or
// broken. An endless body (or a gzip bomb) was refused as "card is 1048577
// bytes", a size it never had (the read stops one byte past the limit);
// one that drips its card byte by byte was refused as "context deadline
// exceeded", naming neither what took too long nor the setting that
// bounds it. Both errors now say what is wrong; a redirect loop and a
// page that is not JSON were already refused clearly (guarded here).
func TestHostileCardServer(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(`{"x-pad":"`))
	_, _ = zw.Write(bytes.Repeat([]byte("a"), 2<<20))
	_ = zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimSuffix(r.URL.Path, WellKnownPath) {
		case "/endless":
			_, _ = w.Write([]byte(`{"x-pad":"`))
			for r.Context().Err() == nil {
				if _, err := w.Write(bytes.Repeat([]byte("a"), 64<<10)); err != nil {
					return
				}
			}
		case "/drip":
			_, _ = w.Write([]byte(`{`))
			w.(http.Flusher).Flush()
			<-r.Context().Done() // (the rest never comes)
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(gz.Bytes())
		case "/loop":
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		case "/html":
			_, _ = w.Write([]byte(`<html>hi</html>`))
		}
	}))
	defer srv.Close()
	// The size checks get a minute: reading a MiB took more than 200 ms
	// once on a loaded machine (under -race).
	for _, c := range []struct {
		path, want string
		timeout    time.Duration
	}{
		{"/endless", "larger than 1048576 bytes", time.Minute},
		{"/gzip", "larger than 1048576 bytes", time.Minute},
		{"/drip", "not received within 200ms (discovery.remotes[].timeout)", 200 * time.Millisecond},
		{"/loop", "stopped after 10 redirects", time.Minute},
		{"/html", "line 1, column 1: not JSON: invalid character '<'", time.Minute},
	} {
		_, err := FetchRemoteCard(context.Background(), RemoteConfig{URL: srv.URL + c.path, Timeout: c.timeout, AllowUnsigned: true}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "1048577") {
			t.Errorf("%s: %v; want an error saying %q", c.path, err, c.want)
		}
	}
}

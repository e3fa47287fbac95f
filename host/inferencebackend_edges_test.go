package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// rawInferenceBackend is an inference backend on a bare TCP socket that
// reads each request and writes answer's bytes (what an HTTP server
// cannot be made to send: a status line of any length, no HTTP at all),
// then closes the connection. It returns its URL.
func rawInferenceBackend(t *testing.T, answer func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				answer(c)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// rawInferenceHost is a test host whose inference backend is url, with
// the key probeKey in AIOS_TEST_KEY.
func rawInferenceHost(t *testing.T, url string) *testEnv {
	t.Helper()
	t.Setenv("AIOS_TEST_KEY", probeKey)
	return newTestHost(t, func(c *config.Config) {
		c.Inference.URL = url
		c.Inference.APIKeyEnv = "AIOS_TEST_KEY"
	})
}

// TestInferenceBackendTextBounded: the backend's error body was cut at
// 512 bytes, but its status line's reason phrase and what it sent instead
// of a status line (quoted whole by Go's client) went into the error
// whole: a 200 kB status line made a 200 kB ToolError for the tool and its
// caller. Both are cut now, the key taken out before the cut (a cut
// through it would leave its first part).
func TestInferenceBackendTextBounded(t *testing.T) {
	long := strings.Repeat(probeKey+" ", 8000)
	for name, answer := range map[string]string{
		"reason phrase":  "HTTP/1.1 429 " + long + "\r\nContent-Length: 2\r\n\r\n{}",
		"2xx reason":     "HTTP/1.1 200 " + long + "\r\nContent-Length: 0\r\n\r\n",
		"no status line": strings.Repeat(probeKey+"_", 8000) + "\r\n\r\n",
	} {
		te := rawInferenceHost(t, rawInferenceBackend(t, func(c net.Conn) { _, _ = c.Write([]byte(answer)) }))
		_, err := te.call("alice", "complete", nil)
		want := abi.Unavailable
		if strings.HasPrefix(answer, "HTTP/1.1 429") {
			want = abi.RateLimited // TestInferenceBackend429RateLimited
		}
		if abi.CodeOf(err) != want {
			t.Fatalf("%s: %v; want %s", name, err, want)
		}
		msg := err.Error()
		if len(msg) > 2048 {
			t.Errorf("%s: the error is %d bytes: %.300s…", name, len(msg), msg)
		}
		if strings.Contains(msg, probeKey[:8]) || !strings.Contains(msg, "[redacted: $AIOS_TEST_KEY]") {
			t.Errorf("%s: %.700s; want the key redacted, none of it left", name, msg)
		}
	}
}

// TestInferenceMissingKeyNamed: with the key's variable unset (the
// default inference.api_key_env, AIOS_INFERENCE_API_KEY, not exported),
// the host sent no key and the error was the backend's "401 Unauthorized"
// alone, naming neither the variable nor the config key. It says no key
// was sent, and which variable (or key) to set.
func TestInferenceMissingKeyNamed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+probeKey {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Unauthorized"}}`))
			return
		}
		_, _ = w.Write([]byte(okAnswer))
	}))
	defer srv.Close()
	for name, tc := range map[string]struct{ env, value, want string }{
		"unset variable":           {"AIOS_TEST_UNSET_KEY", "", "$AIOS_TEST_UNSET_KEY (inference.api_key_env) is not set"},
		"blank variable":           {"AIOS_TEST_KEY", " \n", "$AIOS_TEST_KEY (inference.api_key_env) is not set"},
		"no inference.api_key_env": {"", "", "set inference.api_key_env"},
	} {
		t.Setenv("AIOS_TEST_KEY", tc.value)
		te := newTestHost(t, func(c *config.Config) {
			c.Inference.URL = srv.URL
			c.Inference.APIKeyEnv = tc.env
		})
		_, err := te.call("alice", "complete", nil)
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "Unauthorized") || !strings.Contains(err.Error(), "no API key was sent") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want Unavailable quoting the backend and saying %q", name, err, tc.want)
		}
	}
	// A key sent and refused is the backend's to explain.
	t.Setenv("AIOS_TEST_KEY", "sk-wrong")
	te := newTestHost(t, func(c *config.Config) {
		c.Inference.URL = srv.URL
		c.Inference.APIKeyEnv = "AIOS_TEST_KEY"
	})
	if _, err := te.call("alice", "complete", nil); abi.CodeOf(err) != abi.Unavailable || strings.Contains(err.Error(), "no API key was sent") {
		t.Errorf("wrong key: %v; want the backend's refusal alone", err)
	}
}

// TestInferenceRedirectKeepsPost: a 301, 302 or 303 within inference.url's
// origin (a path moved, a slash added) was followed as Go's client does,
// as a GET without the request: the backend answered that GET, and the
// completion failed with "answered 405 Method Not Allowed" though the host
// had sent a POST, the redirect unsaid. It is not followed, and the error
// names it and where it pointed; 307 and 308 keep the POST and are
// followed.
func TestInferenceRedirectKeepsPost(t *testing.T) {
	var gets atomic.Int32
	h := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/chat/completions" {
				http.Redirect(w, r, "/v1/chat/completions/", status)
				return
			}
			if r.Method != http.MethodPost {
				gets.Add(1)
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
			_, _ = w.Write([]byte(okAnswer))
		}
	}
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther} {
		te := inferenceHost(t, h(status), 0)
		_, err := te.call("alice", "complete", nil)
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "redirected ("+strconv.Itoa(status)+")") ||
			!strings.Contains(err.Error(), "/v1/chat/completions/") || !strings.Contains(err.Error(), "inference.url") {
			t.Errorf("redirect %d within the origin: %v; want Unavailable naming the redirect and inference.url", status, err)
		}
	}
	if n := gets.Load(); n != 0 {
		t.Errorf("the backend was asked %d times with a method other than POST", n)
	}
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		te := inferenceHost(t, h(status), 0)
		if v, err := te.call("alice", "complete", nil); err != nil || v != "hi" {
			t.Errorf("redirect %d within the origin: %v %v; want it followed", status, v, err)
		}
	}
}

// TestInferenceRetryAfterKept: a backend's 429 or 503 with Retry-After
// became an Unavailable with data.status alone: when to try again was
// lost. The error carries it as data.retry_after_ms (as RateLimited does)
// and says it; a Retry-After that does not parse, or none, adds nothing.
func TestInferenceRetryAfterKept(t *testing.T) {
	for name, tc := range map[string]struct {
		status int
		header string
		want   int64 // -1: no retry_after_ms
	}{
		"429 seconds":   {http.StatusTooManyRequests, "7", 7000},
		"503 seconds":   {http.StatusServiceUnavailable, "120", 120000},
		"429 none":      {http.StatusTooManyRequests, "", -1},
		"500 none":      {http.StatusInternalServerError, "", -1},
		"503 garbage":   {http.StatusServiceUnavailable, "soon", -1},
		"429 past date": {http.StatusTooManyRequests, "Wed, 21 Oct 2015 07:28:00 GMT", 0},
		"429 huge":      {http.StatusTooManyRequests, "99999999999999999999", -2},
		"429 year 9999": {http.StatusTooManyRequests, "Fri, 31 Dec 9999 23:59:59 GMT", -2},
	} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.header != "" {
				w.Header().Set("Retry-After", tc.header)
			}
			http.Error(w, `{"error":{"message":"busy"}}`, tc.status)
		}, 0)
		_, err := te.call("alice", "complete", nil)
		var terr *abi.ToolError
		want := abi.Unavailable
		if tc.status == http.StatusTooManyRequests {
			want = abi.RateLimited // TestInferenceBackend429RateLimited
		}
		if !errors.As(err, &terr) || terr.Code != want || !strings.Contains(terr.Message, "busy") {
			t.Fatalf("%s: %v; want %s quoting the backend", name, err, want)
		}
		m, _ := terr.Data.(map[string]any)
		ms, has := m["retry_after_ms"].(int64)
		switch {
		case tc.want == -1 && has:
			t.Errorf("%s: retry_after_ms %d; want none", name, ms)
		case tc.want == -2 && (!has || ms != (24*time.Hour).Milliseconds()):
			t.Errorf("%s: retry_after_ms %d (%v); want a day, the most taken", name, ms, has)
		case tc.want >= 0 && (!has || ms != tc.want || !strings.Contains(terr.Message, "Retry-After")):
			t.Errorf("%s: %v, data %v; want retry_after_ms %d and the message saying it", name, err, terr.Data, tc.want)
		}
		if st, _ := m["status"].(int64); st != int64(tc.status) {
			t.Errorf("%s: data.status %v; want %d", name, m["status"], tc.status)
		}
	}
}

// TestInferenceCertificateErrorSaysHow: an https backend whose certificate
// a private authority signed failed with Go's "x509: certificate signed by
// unknown authority" alone, naming no setting. The error says how the
// host can be made to trust it, and names inference.url.
func TestInferenceCertificateErrorSaysHow(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte(okAnswer))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	defer srv.Close()
	te := rawInferenceHost(t, srv.URL)
	_, err := te.call("alice", "complete", nil)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "certificate") ||
		!strings.Contains(err.Error(), "SSL_CERT_FILE") || !strings.Contains(err.Error(), "inference.url") {
		t.Errorf("unknown authority: %v; want Unavailable saying how to trust it", err)
	}
	if asked.Load() != 0 {
		t.Error("the request reached a backend whose certificate was not trusted")
	}
}

// TestInferenceEndedCallSpendsNoRate: a tool that asked for a completion
// after its call had ended (its caller cancelled, its deadline passed: a
// tool finishing up, or one ignoring its ctx) spent a token of
// inference.rate each time though the request was never sent, so such
// a tool emptied the bucket every tool shares. A completion asked for
// once the call has ended is refused with the call's code before it takes
// a token.
func TestInferenceEndedCallSpendsNoRate(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte(okAnswer))
	}))
	defer srv.Close()
	te := newTestHost(t, func(c *config.Config) {
		c.Inference.URL = srv.URL
		c.Inference.Rate = &config.Rate{PerSecond: 0.001, Burst: 2}
	})
	running := make(chan struct{})
	codes := make(chan abi.ErrorCode, 4)
	p := native.New(abi.ProviderInfo{ID: "org.test.late", Version: "1.0.0", Capabilities: []string{"Inference"}})
	p.MustRegister(abi.ToolDef{Name: "late-complete", Version: "1.0.0"},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			close(running)
			<-ctx.Done()
			for range 4 {
				_, err := env.Complete(ctx, abi.CompleteRequest{Prompt: "too late"})
				codes <- abi.CodeOf(err)
			}
			return nil, ctx.Err()
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "late-complete", Deadline: time.Now().Add(30 * time.Second)})
		done <- err
	}()
	<-running
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled call did not end")
	}
	close(codes)
	for c := range codes {
		if c != abi.Cancelled {
			t.Errorf("a completion after the call was cancelled: %v; want Cancelled", c)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the backend was asked %d times for an ended call", n)
	}
	// Burst 2, nothing sent: two completions are within the rate.
	for i := range 2 {
		if _, err := te.call("alice", "complete", nil); err != nil {
			t.Fatalf("completion %d of burst 2 after the ended call's: %v (they spent inference.rate tokens)", i+1, err)
		}
	}
}

// TestInferenceBrokenBodyKeepsStatus: a backend that answered 503 (or
// any status) and whose body then stalled or broke off was reported as
// "the answer did not arrive whole" or "reading the answer: unexpected
// EOF", its status, already received, unsaid. The error names it.
func TestInferenceBrokenBodyKeepsStatus(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	stall := rawInferenceBackend(t, func(c net.Conn) {
		_, _ = c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 100\r\n\r\n{\"error\":"))
		<-stop
	})
	cut := rawInferenceBackend(t, func(c net.Conn) {
		_, _ = c.Write([]byte("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 100\r\n\r\n{\"error\":"))
	})
	te := rawInferenceHost(t, stall)
	_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "complete", Deadline: time.Now().Add(500 * time.Millisecond)})
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "503 Service Unavailable") || !strings.Contains(err.Error(), "did not arrive whole") {
		t.Errorf("503 whose body stalls: %v; want Timeout naming the status", err)
	}
	te = rawInferenceHost(t, cut)
	_, err = te.call("alice", "complete", nil)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "500 Internal Server Error") || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("500 whose body breaks off: %v; want Unavailable naming the status", err)
	}
}

// TestInferenceFinishReasonKept: a completion's finish_reason was
// dropped, so a tool (or an MCP server sampling through the host) could
// not tell an answer cut at max_tokens ("length") from a whole one.
// CompleteResponse carries it, cut at 64 bytes with the key taken out.
func TestInferenceFinishReasonKept(t *testing.T) {
	for sent, want := range map[string]string{
		`"length"`:                               "length",
		`"stop"`:                                 "stop",
		`null`:                                   "",
		`"` + strings.Repeat(probeKey, 10) + `"`: "[redacted: $AIOS_TEST_KEY][redacted: $AIOS_TEST_KEY]",
	} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"model":"m","choices":[{"message":{"content":"cut"},"finish_reason":` + sent + `}]}`))
		}, 0)
		var got abi.CompleteResponse
		p := native.New(abi.ProviderInfo{ID: "org.test.finish", Version: "1.0.0", Capabilities: []string{"Inference"}})
		p.MustRegister(abi.ToolDef{Name: "finish", Version: "1.0.0"},
			func(ctx context.Context, params any, env abi.Env) (any, error) {
				var err error
				got, err = env.Complete(ctx, abi.CompleteRequest{Prompt: "p"})
				return nil, err
			})
		if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
		if _, err := te.call("alice", "finish", nil); err != nil {
			t.Fatalf("finish_reason %s: %v", sent, err)
		}
		if got.Text != "cut" || !strings.HasPrefix(got.FinishReason, want) || len(got.FinishReason) > 64+len("…") || strings.Contains(got.FinishReason, probeKey[:8]) {
			t.Errorf("finish_reason %.40s: got %+v; want %q", sent, got, want)
		}
	}
}

// TestInferenceEndsWithCall: a completion asked for under a context other
// than the call's (a native tool's goroutine using context.Background())
// ran on after its call had returned, to inference.timeout, holding one of
// inference.max_concurrent's places and charged to a call already over.
// It ends with the call.
func TestInferenceEndsWithCall(t *testing.T) {
	arrived := make(chan struct{}, 1)
	gone := make(chan struct{}, 1)
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // the server notices a closed connection once the body is read
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
			gone <- struct{}{}
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop) // before the server closes
	te := newTestHost(t, func(c *config.Config) {
		c.Inference.URL = srv.URL
		c.Inference.Timeout = 10 * time.Minute
	})
	result := make(chan error, 1)
	p := native.New(abi.ProviderInfo{ID: "org.test.detached", Version: "1.0.0", Capabilities: []string{"Inference"}})
	p.MustRegister(abi.ToolDef{Name: "detached-complete", Version: "1.0.0"},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			go func() {
				_, err := env.Complete(context.Background(), abi.CompleteRequest{Prompt: "p"})
				result <- err
			}()
			select {
			case <-arrived:
			case <-time.After(30 * time.Second):
				return nil, errors.New("the completion never reached the backend")
			}
			return "returned", nil
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	if v, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "detached-complete", Deadline: time.Now().Add(10 * time.Minute)}); err != nil || v != "returned" {
		t.Fatalf("call: %v %v", v, err)
	}
	select {
	case err := <-result:
		if abi.CodeOf(err) != abi.Cancelled {
			t.Errorf("the completion of a call that returned: %v; want Cancelled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the completion ran on after its call had returned")
	}
	select {
	case <-gone:
	case <-time.After(30 * time.Second):
		t.Fatal("the backend's request was not cancelled when the call returned")
	}
}

// TestInferenceByteOrderMarkIgnored: a backend (or a proxy before it)
// that writes a UTF-8 byte order mark before its JSON answer was refused
// as "not JSON at all … is inference.url the API's address?". The mark is
// skipped (RFC 8259 8.1), in answers and in errors.
func TestInferenceByteOrderMarkIgnored(t *testing.T) {
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write([]byte("\xef\xbb\xbf" + okAnswer))
	}, 0)
	if v, err := te.call("alice", "complete", nil); err != nil || v != "hi" {
		t.Errorf("answer after a byte order mark: %v %v; want hi", v, err)
	}
	te = inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("\xef\xbb\xbf" + `{"error":{"message":"model m9 not found"}}`))
	}, 0)
	if _, err := te.call("alice", "complete", nil); abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "404 Not Found: model m9 not found") {
		t.Errorf("error after a byte order mark: %v; want the backend's message alone", err)
	}
}

// TestInferenceRedirectTargetBounded: a refused redirect's error named
// where it pointed, the backend's Location header, whole: a 100 kB
// Location made a 100 kB ToolError. It is cut (the key taken out first).
func TestInferenceRedirectTargetBounded(t *testing.T) {
	for _, target := range []string{"http://elsewhere.invalid/", "/same-origin/"} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", target+strings.Repeat(probeKey+"-", 4000))
			w.WriteHeader(http.StatusFound)
		}, 0)
		_, err := te.call("alice", "complete", nil)
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "redirected") {
			t.Fatalf("redirect to %s…: %v; want Unavailable saying it is not followed", target, err)
		}
		if msg := err.Error(); len(msg) > 2048 || strings.Contains(msg, probeKey[:8]) {
			t.Errorf("redirect to %s…: a %d-byte error: %.400s…; want it cut, without the key", target, len(msg), msg)
		}
	}
}

// TestInferenceMissingModelNamed: with no inference.model (the default)
// and no model from the tool, the request went without one, and a backend
// that needs one answered 400 "you must provide a model parameter",
// naming no config key. The error adds which key to set; with a model
// sent it is the backend's alone.
func TestInferenceMissingModelNamed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		if body.Model == "" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"you must provide a model parameter"}}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"message":"model ` + body.Model + ` does not exist"}}`))
	}))
	defer srv.Close()
	te := newTestHost(t, func(c *config.Config) { c.Inference.URL = srv.URL })
	_, err := te.call("alice", "complete", nil)
	if err == nil || !strings.Contains(err.Error(), "you must provide a model parameter") || !strings.Contains(err.Error(), "set inference.model") {
		t.Errorf("no model: %v; want the backend's error and the key to set", err)
	}
	te = newTestHost(t, func(c *config.Config) { c.Inference.URL = srv.URL; c.Inference.Model = "gpt-9" })
	_, err = te.call("alice", "complete", nil)
	if err == nil || !strings.Contains(err.Error(), "model gpt-9 does not exist") || strings.Contains(err.Error(), "no model was sent") {
		t.Errorf("a model sent: %v; want the backend's error alone", err)
	}
}

package host

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

const probeKey = "sk-probe-0123456789abcdef"

// inferenceHost is a test host whose inference backend is h, with the key
// probeKey in AIOS_TEST_KEY and the given inference.timeout.
func inferenceHost(t *testing.T, h http.HandlerFunc, timeout time.Duration) *testEnv {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Setenv("AIOS_TEST_KEY", probeKey)
	return newTestHost(t, func(c *config.Config) {
		c.Inference.URL = srv.URL
		c.Inference.APIKeyEnv = "AIOS_TEST_KEY"
		if timeout > 0 {
			c.Inference.Timeout = timeout
		}
	})
}

const okAnswer = `{"model":"m","choices":[{"message":{"role":"assistant","content":"hi"}}]}`

// TestInferenceRedirectOffOrigin: the backend's redirect to another
// port of the same host (another service) was followed with the API key:
// Go's client keeps Authorization when the host name is the same, whatever
// the port or scheme (https → http would send it in clear). Now a redirect
// out of inference.url's origin is not followed, and says so; one within
// it still is.
func TestInferenceRedirectOffOrigin(t *testing.T) {
	var hits atomic.Int32
	var sawKey atomic.Value
	sawKey.Store("")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		sawKey.Store(r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(okAnswer))
	}))
	defer other.Close()
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound, http.StatusSeeOther} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/v1/chat/completions", status)
		}, 0)
		_, err := te.call("alice", "complete", nil)
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "outside the origin") || !strings.Contains(err.Error(), other.URL) {
			t.Errorf("redirect %d to another origin: %v; want Unavailable saying it is not followed", status, err)
		}
		if k := sawKey.Load().(string); hits.Load() != 0 || k != "" {
			t.Errorf("redirect %d: the other server was asked %d times, with Authorization %q", status, hits.Load(), k)
		}
	}
	// Within the origin (a moved path) the redirect is followed, with the key.
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			http.Redirect(w, r, "/moved/chat/completions", http.StatusTemporaryRedirect)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+probeKey {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(okAnswer))
	}, 0)
	if v, err := te.call("alice", "complete", nil); err != nil || v != "hi" {
		t.Fatalf("same-origin redirect: %v %v", v, err)
	}
}

// TestInferenceKeyNotInErrors: a backend quoting the request's
// Authorization header in its error (a proxy echoing headers) put the API
// key in the ToolError the tool and its caller get, and in the audit log.
func TestInferenceKeyNotInErrors(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"401 body": func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "bad credentials: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
		},
		"401 JSON error": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"key ` + probeKey + ` is revoked"}}`))
		},
		"200 error, no choices": func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"error":{"message":"key ` + probeKey + ` over quota"}}`))
		},
	} {
		te := inferenceHost(t, h, 0)
		_, err := te.call("alice", "complete", nil)
		if err == nil || strings.Contains(err.Error(), probeKey) || !strings.Contains(err.Error(), "[redacted: $AIOS_TEST_KEY]") {
			t.Errorf("%s: %v; want an error with the key redacted", name, err)
		}
		if err := te.h.Close(); err != nil {
			t.Fatal(err)
		}
		data, rerr := os.ReadFile(te.audit)
		if rerr != nil || len(data) == 0 {
			t.Fatalf("%s: audit log: %v (%d bytes)", name, rerr, len(data))
		}
		if strings.Contains(string(data), probeKey) {
			t.Errorf("%s: the audit log holds the API key", name)
		}
	}
}

// TestInferenceHugeAnswer: an answer past the 8 MiB the host reads
// was cut and then reported as "not chat-completions JSON: unexpected end
// of JSON input", hiding that it was too large.
func TestInferenceHugeAnswer(t *testing.T) {
	// 8 MiB bodies read under -race on a loaded machine can take more
	// than the test tools' default deadline of 5 s.
	call := func(te *testEnv) (any, error) {
		return te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "complete", Deadline: time.Now().Add(2 * time.Minute)})
	}
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"` + strings.Repeat("x", maxInferenceBody) + `"}}]}`))
	}, 0)
	_, err := call(te)
	if abi.CodeOf(err) != abi.TooLarge || !strings.Contains(err.Error(), "more than 8 MiB") {
		t.Fatalf("%v; want TooLarge saying the answer is over 8 MiB", err)
	}
	// A failure with a huge body is still reported by its status.
	te = inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(strings.Repeat("z", maxInferenceBody+100)))
	}, 0)
	if _, err := call(te); abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "503") || len(err.Error()) > 1024 {
		t.Fatalf("503 with a huge body: %.300v; want Unavailable naming the status, the body cut", err)
	}
	// An answer of exactly the bound is read whole.
	pad := maxInferenceBody - len(`{"choices":[{"message":{"content":""}}]}`)
	te = inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"` + strings.Repeat("y", pad) + `"}}]}`))
	}, 0)
	te.h.pol.maxResult = 16 << 20
	if v, err := call(te); err != nil || len(v.(string)) != pad {
		t.Fatalf("an answer of exactly %d bytes: %v", maxInferenceBody, err)
	}
}

// TestInferenceTimeoutNamed: a backend that never answers gave
// "Timeout: context deadline exceeded", naming neither the backend nor
// inference.timeout. The call's own deadline still bounds the wait.
func TestInferenceTimeoutNamed(t *testing.T) {
	stop := make(chan struct{})
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}
	te := inferenceHost(t, hang, 200*time.Millisecond)
	te2 := inferenceHost(t, hang, time.Minute)
	te3 := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"choices":[`)) // then nothing more
		w.(http.Flusher).Flush()
		hang(w, r)
	}, 200*time.Millisecond)
	t.Cleanup(func() { close(stop) }) // before the servers close
	if _, err := te3.call("alice", "complete", nil); abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "did not arrive whole within inference.timeout (200ms)") {
		t.Fatalf("answer cut short: %v; want Timeout saying the answer did not arrive whole", err)
	}
	start := time.Now()
	_, err := te.call("alice", "complete", nil)
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "inference.timeout (200ms)") || !strings.Contains(err.Error(), "/v1/chat/completions") {
		t.Fatalf("%v; want Timeout naming the backend and inference.timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v", d)
	}
	// A call deadline shorter than inference.timeout ends the wait.
	start = time.Now()
	_, err = te2.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "complete", Deadline: time.Now().Add(150 * time.Millisecond)})
	if abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("%v; want Timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the call's deadline of 150ms ended the wait after %v", d)
	}
}

// TestInferenceBackendErrorKept: a 200 answer carrying an error and
// no choices lost the backend's message ("sent no choices"); a non-2xx
// body was cut at 512 bytes in the middle of a UTF-8 sequence, leaving an
// invalid string in the error.
func TestInferenceBackendErrorKept(t *testing.T) {
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"error":{"message":"model overloaded"}}`))
	}, 0)
	if _, err := te.call("alice", "complete", nil); abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "model overloaded") {
		t.Fatalf("%v; want the backend's message", err)
	}
	te = inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("x" + strings.Repeat("é", 600)))
	}, 0)
	_, err := te.call("alice", "complete", nil)
	if abi.CodeOf(err) != abi.Unavailable || !utf8.ValidString(err.Error()) || !strings.Contains(err.Error(), "éé…") {
		t.Fatalf("%q; want valid UTF-8 cut with …", err)
	}
}

// TestInferenceMaxTokensRange: a max_tokens below 0 or past int32
// from a provider whose runtime does not check it (a native Go provider;
// Python's SDK passes int(max_tokens) on) was sent to the backend as is.
func TestInferenceMaxTokensRange(t *testing.T) {
	var asked atomic.Int32
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte(okAnswer))
	}, 0)
	p := native.New(abi.ProviderInfo{ID: "org.probe.tokens", Capabilities: []string{"Inference"}})
	p.MustRegister(abi.ToolDef{Name: "tokens", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		n, _ := params.(map[string]any)["n"].(int64)
		r, err := env.Complete(ctx, abi.CompleteRequest{Prompt: "hi", MaxTokens: int(n)})
		return r.Text, err
	})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{-1, 1 << 40} {
		_, err := te.call("alice", "tokens", map[string]any{"n": n})
		if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), "max_tokens") {
			t.Errorf("max_tokens %d: %v; want InvalidParams naming max_tokens", n, err)
		}
	}
	if asked.Load() != 0 {
		t.Errorf("the backend was asked %d times", asked.Load())
	}
	if v, err := te.call("alice", "tokens", map[string]any{"n": int64(5)}); err != nil || v != "hi" {
		t.Fatalf("max_tokens 5: %v %v", v, err)
	}
}

// TestInferenceKeyWhitespace: a key whose variable ends in a newline
// or CR (an env file written on Windows, a secret file read whole) failed
// every call with 'net/http: invalid header field value for
// "Authorization"', naming neither the variable nor the cause. Surrounding
// white space is now trimmed; a control character inside is named.
func TestInferenceKeyWhitespace(t *testing.T) {
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+probeKey {
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(okAnswer))
	}, 0)
	t.Setenv("AIOS_TEST_KEY", " "+probeKey+"\r\n")
	if v, err := te.call("alice", "complete", nil); err != nil || v != "hi" {
		t.Fatalf("key with a trailing CRLF: %v %v", v, err)
	}
	t.Setenv("AIOS_TEST_KEY", "sk-a\nb")
	_, err := te.call("alice", "complete", nil)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "$AIOS_TEST_KEY") || !strings.Contains(err.Error(), "control character") || strings.Contains(err.Error(), "sk-a") {
		t.Fatalf("key with a newline inside: %v; want Unavailable naming the variable, not the key", err)
	}
}

// TestInferenceNoContent: a choice whose message is a refusal, or has no
// content (a content filter, a tool call the host did not ask for), came
// back as an empty completion; now it is an error saying which. An empty
// string of content is still an (empty) answer.
func TestInferenceNoContent(t *testing.T) {
	for _, tc := range []struct {
		answer string
		code   abi.ErrorCode
		want   string
	}{
		{`{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`, abi.ProviderError, "the model refused: I can't help with that."},
		{`{"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"content_filter"}]}`, abi.ProviderError, "content filter"},
		{`{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{}]},"finish_reason":"tool_calls"}]}`, abi.Unavailable, `without content (finish_reason "tool_calls")`},
		{`{"choices":[{"message":{"role":"assistant"}}]}`, abi.Unavailable, "without content"},
		{`{"choices":[{"message":{"role":"assistant","content":""},"finish_reason":"length"}]}`, "", ""},
	} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(tc.answer)) }, 0)
		v, err := te.call("alice", "complete", nil)
		if tc.code == "" {
			if err != nil || v != "" {
				t.Errorf("%s: %v %v, want the empty text", tc.answer, v, err)
			}
			continue
		}
		if abi.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v %v, want %s naming %q", tc.answer, v, err, tc.code, tc.want)
		}
	}
}

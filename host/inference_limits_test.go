package host

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestInferenceWrongShape: 2xx answers of the wrong JSON shape.
func TestInferenceWrongShape(t *testing.T) {
	for name, body := range map[string]string{
		"choices string": `{"choices":"nope"}`,
		"error string":   `{"error":"model llama9 not found"}`,
		"content number": `{"choices":[{"message":{"content":5}}]}`,
		"array":          `[1,2,3]`,
		"sse":            "data: {\"choices\":[]}\n\ndata: [DONE]\n",
		"empty":          ``,
	} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(body))
		}, 0)
		_, err := te.call("alice", "complete", nil)
		t.Logf("%s: %v", name, err)
		if abi.CodeOf(err) != abi.Unavailable || strings.Contains(err.Error(), "struct") || strings.Contains(err.Error(), "chatResponse") {
			t.Errorf("%s: %v; want Unavailable without Go internals", name, err)
		}
		if name == "error string" && !strings.Contains(err.Error(), "model llama9 not found") {
			t.Errorf("%s: %v; want the backend's error", name, err)
		}
	}
}

// TestInferenceCancelStopsRequest: a call cancelled while the backend
// hangs ends at once and the backend sees the request cancelled.
func TestInferenceCancelStopsRequest(t *testing.T) {
	var gone atomic.Int32
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // the server notices a closed connection once the body is read
		select {
		case <-r.Context().Done():
			gone.Add(1)
		case <-time.After(10 * time.Second):
		}
	}, 0)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "complete"})
	if abi.CodeOf(err) != abi.Cancelled || time.Since(start) > 2*time.Second {
		t.Fatalf("cancelled: %v after %v", err, time.Since(start))
	}
	deadline := time.Now().Add(2 * time.Second)
	for gone.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if gone.Load() == 0 {
		t.Fatal("the backend's request was not cancelled")
	}
	// Deadline while the answer trickles in.
	te2 := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		for i := 0; i < 100; i++ {
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(50 * time.Millisecond)
		}
	}, 0)
	start = time.Now()
	_, err = te2.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "complete", Deadline: time.Now().Add(200 * time.Millisecond)})
	t.Logf("trickle: %v", err)
	if abi.CodeOf(err) != abi.Timeout || time.Since(start) > 2*time.Second {
		t.Fatalf("trickle: %v after %v", err, time.Since(start))
	}
}

// TestInferenceKeyInData: what a backend sends back goes into the
// error's data as well as its message; the key must be in neither.
func TestInferenceKeyInData(t *testing.T) {
	for name, body := range map[string]string{
		"null content": `{"choices":[{"message":{"content":null},"finish_reason":"length ` + probeKey + strings.Repeat("x", 1<<20) + `"}]}`,
		"refusal":      `{"choices":[{"message":{"refusal":"no"},"finish_reason":"stop ` + probeKey + strings.Repeat("x", 1<<20) + `"}]}`,
	} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(body))
		}, 0)
		_, err := te.call("alice", "complete", nil)
		te2 := abi.AsToolError(err, abi.Internal)
		s := te2.Message
		data, _ := te2.Data.(map[string]any)
		for k, v := range data {
			if str, ok := v.(string); ok {
				s += " " + k + "=" + str
				if len(str) > 4096 {
					t.Errorf("%s: data.%s is %d bytes", name, k, len(str))
				}
			}
		}
		if strings.Contains(s, probeKey) {
			t.Errorf("%s: the key reached the error: %.200s", name, s)
		}
	}
}

// TestInferenceTemperatureNotFinite: a NaN or infinite temperature
// (a JS tool's {temperature: NaN}, a native provider's) has no JSON form:
// refused before the backend is asked, naming the option.
func TestInferenceTemperatureNotFinite(t *testing.T) {
	var asked atomic.Int32
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte(okAnswer))
	}, 0)
	p := native.New(abi.ProviderInfo{ID: "org.test.temp", Version: "1.0.0", Capabilities: []string{"Inference"}})
	p.MustRegister(abi.ToolDef{Name: "temp", Version: "1.0.0", Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			var errs []string
			for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				_, err := env.Complete(ctx, abi.CompleteRequest{Prompt: "x", Temperature: &v})
				errs = append(errs, string(abi.CodeOf(err))+": "+fmt.Sprint(err))
			}
			return errs, nil
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	v, err := te.call("alice", "temp", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range v.([]any) {
		s := e.(string)
		if !strings.HasPrefix(s, "InvalidParams") || !strings.Contains(s, "temperature") {
			t.Errorf("%s; want InvalidParams naming temperature", s)
		}
	}
	if asked.Load() != 0 {
		t.Errorf("the backend was asked %d times", asked.Load())
	}
}

// TestInferenceNestedIntersected: a tool whose provider lacks
// Inference cannot have another tool complete for it (the nested call's
// grants are its caller's ∩ its provider's), nor can a caller without
// Inference reach it through a tool whose provider holds it.
func TestInferenceNestedIntersected(t *testing.T) {
	var asked atomic.Int32
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte(okAnswer))
	}, 0)
	p := native.New(abi.ProviderInfo{ID: "org.test.relay", Version: "1.0.0", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "relay", Version: "1.0.0"},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			return env.CallTool(ctx, "complete", "", map[string]any{})
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.call("alice", "relay", nil); abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "Inference") {
		t.Errorf("alice → relay (no Inference) → complete: %v; want CapabilityDenied naming Inference", err)
	}
	if _, err := te.call("limited", "complete", nil); abi.CodeOf(err) != abi.CapabilityDenied {
		t.Errorf("limited → complete: %v", err)
	}
	if asked.Load() != 0 {
		t.Errorf("the backend was asked %d times", asked.Load())
	}
	if v, err := te.call("alice", "complete", nil); err != nil || v != "hi" {
		t.Errorf("alice → complete: %v %v", v, err)
	}
}

// TestInferenceNotJSONSaid: a 2xx answer that is no JSON at all (an
// empty body, a proxy's HTML login page, an event stream) was reported in
// the decoder's words ("unexpected end of JSON input", "invalid character
// '<' looking for beginning of value"), not what came instead.
func TestInferenceNotJSONSaid(t *testing.T) {
	for name, c := range map[string]struct {
		status     int
		body, want string
	}{
		"empty":  {204, "", "empty"},
		"html":   {200, "<!DOCTYPE html><html><title>Sign in</title>", `"<!DOCTYPE html><html><title>Sign in</title>"`},
		"stream": {200, "data: {\"choices\":[]}\n\n", `"data: {`},
	} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			_, _ = w.Write([]byte(c.body))
		}, 0)
		_, err := te.call("alice", "complete", nil)
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want Unavailable saying %s", name, err, c.want)
		}
	}
}

package wasm

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// stopEnv records the stop sequences of the completions it is asked.
type stopEnv struct {
	*fakeEnv
	mu    sync.Mutex
	stops [][]string
}

func (e *stopEnv) Complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	e.mu.Lock()
	e.stops = append(e.stops, req.Stop)
	e.mu.Unlock()
	return abi.CompleteResponse{Text: "t", FinishReason: "stop"}, nil
}

// TestGoGuestCompletionStopSequences: a guest could not give the backend
// stop sequences (chat-completions' "stop"), which an MCP server's
// sampling could: CompleteRequest.Stop reaches it through ai_complete's
// "stop"; a stop of another type than a string or an array of strings is
// refused naming it.
func TestGoGuestCompletionStopSequences(t *testing.T) {
	const src = `package main

import aios "github.com/aios-host/aios-host/guest/go"

func init() {
	aios.Register(aios.Provider{ID: "org.example.probe.completionstop", Capabilities: []string{"Inference"}})
	aios.HandleFunc(aios.Tool{Name: "ask"}, func(c *aios.Call, in struct{}) (any, error) {
		if _, err := c.Complete(aios.CompleteRequest{Prompt: "hi", Stop: []string{"\n\n", "END"}}); err != nil {
			return nil, err
		}
		return "ok", nil
	})
}

func main() {}
`
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, probeGoGuest(t, src))
	env := &stopEnv{fakeEnv: newFakeEnv(p, 4)}
	call := &abi.ToolCall{ID: "c1", Tool: "ask", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
	env.call = call
	got, err := p.Call(context.Background(), call, env)
	want := [][]string{{"\n\n", "END"}}
	if err != nil || got != "ok" || !reflect.DeepEqual(env.stops, want) {
		t.Fatalf("%v, %v; the backend was asked with stop %q, want %q", got, err, env.stops, want)
	}
}

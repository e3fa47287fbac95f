package wasm

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// cutAnswerEnv answers every completion with an answer cut at max_tokens.
type cutAnswerEnv struct{ *fakeEnv }

func (e *cutAnswerEnv) Complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	return abi.CompleteResponse{Text: "a cut ans", Model: "m1", FinishReason: "length"}, nil
}

// TestGoGuestCompletionFinishReason: ai_complete answered {text, model}
// and the Go guest's Call.Complete the text alone, so a guest could not
// tell an answer the backend cut at max_tokens (finish_reason "length")
// from a whole one. ai_complete's answer carries finish_reason, and
// Call.Completion answers the text, model and finish reason, as JS's and
// Python's ctx.ai.completion do.
func TestGoGuestCompletionFinishReason(t *testing.T) {
	const src = `package main

import aios "github.com/aios-host/aios-host/guest/go"

func init() {
	aios.Register(aios.Provider{ID: "org.example.probe.completion", Capabilities: []string{"Inference"}})
	aios.HandleFunc(aios.Tool{Name: "ask"}, func(c *aios.Call, in struct{}) (any, error) {
		r, err := c.Completion(aios.CompleteRequest{Prompt: "hi", MaxTokens: 3})
		if err != nil {
			return nil, err
		}
		return map[string]any{"text": r.Text, "model": r.Model, "finish": r.FinishReason}, nil
	})
}

func main() {}
`
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, probeGoGuest(t, src))
	env := &cutAnswerEnv{fakeEnv: newFakeEnv(p, 4)}
	call := &abi.ToolCall{ID: "c1", Tool: "ask", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
	env.call = call
	got, err := p.Call(context.Background(), call, env)
	want := map[string]any{"text": "a cut ans", "model": "m1", "finish": "length"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%#v, %v; want %#v", got, err, want)
	}
}

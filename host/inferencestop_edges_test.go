package host

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestInferenceStopSequences: a completion asked with stop sequences (an
// MCP server's sampling stopSequences) reached the backend without them;
// they go in the chat-completions request's "stop", and a request
// without any has no "stop".
func TestInferenceStopSequences(t *testing.T) {
	bodies := make(chan map[string]any, 2)
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		bodies <- m
		_, _ = w.Write([]byte(okAnswer))
	}, 0)
	p := native.New(abi.ProviderInfo{ID: "org.test.stop", Version: "1.0.0", Capabilities: []string{"Inference"}})
	p.MustRegister(abi.ToolDef{Name: "stop", Version: "1.0.0", Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			if _, err := env.Complete(ctx, abi.CompleteRequest{Prompt: "x", Stop: []string{"\n\n", "END"}}); err != nil {
				return nil, err
			}
			_, err := env.Complete(ctx, abi.CompleteRequest{Prompt: "x"})
			return nil, err
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.call("alice", "stop", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	with, without := <-bodies, <-bodies
	var stop []string
	if s, ok := with["stop"].([]any); ok {
		for _, x := range s {
			str, _ := x.(string)
			stop = append(stop, str)
		}
	}
	if !slices.Equal(stop, []string{"\n\n", "END"}) {
		t.Errorf("the backend was sent stop %v, want [\"\\n\\n\" \"END\"] (request %v)", with["stop"], with)
	}
	if s, ok := without["stop"]; ok {
		t.Errorf("a request without stop sequences was sent stop %v", s)
	}
}

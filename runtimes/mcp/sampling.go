package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
)

// Sampling (seed: "MCP's sampling (server requests LLM completion) maps to
// AIOS's AgentContext.ai.complete() but requires the bridge to hold an
// Inference capability"). A server may ask the bridge for a completion
// while it serves one of the bridge's tool calls; the bridge answers it
// through that call's Env.Complete, so the host checks Inference against
// the calling agent's grants intersected with the bridged server's
// provider grants (an Untrusted server holds none unless the operator
// grants it) and the completion is the host's configured inference. A
// request outside any call of the server, or while several of its calls
// are in flight (it cannot be tied to one caller), is refused.

// inflight tracks the Envs of a server's calls in flight.
type inflight struct {
	mu   sync.Mutex
	envs map[*abi.ToolCall]abi.Env
}

func (f *inflight) add(c *abi.ToolCall, env abi.Env) func() {
	if env == nil {
		return func() {}
	}
	f.mu.Lock()
	if f.envs == nil {
		f.envs = map[*abi.ToolCall]abi.Env{}
	}
	f.envs[c] = env
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.envs, c)
		f.mu.Unlock()
	}
}

// only returns the Env of the one call in flight, or why there is none.
func (f *inflight) only() (abi.Env, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch len(f.envs) {
	case 0:
		return nil, fmt.Errorf("no call of the bridge to this server is in flight: sampling is answered only for the caller of a tool call")
	case 1:
		for _, env := range f.envs {
			return env, nil
		}
	}
	return nil, fmt.Errorf("%d calls of the bridge to this server are in flight: the sampling request cannot be tied to one caller's grants", len(f.envs))
}

// sample answers a server's sampling/createMessage.
func (s *server) sample(ctx context.Context, req *mcpsdk.CreateMessageRequest) (*mcpsdk.CreateMessageResult, error) {
	p := req.Params
	if p == nil {
		return nil, fmt.Errorf("sampling/createMessage without params")
	}
	env, err := s.calls.only()
	if err != nil {
		return nil, err
	}
	var prompt strings.Builder
	for i, m := range p.Messages {
		if m == nil {
			continue
		}
		text, ok := m.Content.(*mcpsdk.TextContent)
		if !ok {
			return nil, fmt.Errorf("messages[%d]: only text content can be sampled here (got %T)", i, m.Content)
		}
		if len(p.Messages) > 1 {
			fmt.Fprintf(&prompt, "%s: ", m.Role)
		}
		prompt.WriteString(text.Text)
		prompt.WriteByte('\n')
	}
	cr := abi.CompleteRequest{Prompt: strings.TrimSuffix(prompt.String(), "\n"), System: p.SystemPrompt, MaxTokens: int(p.MaxTokens)}
	if p.Temperature != 0 {
		t := p.Temperature
		cr.Temperature = &t
	}
	res, err := env.Complete(ctx, cr)
	if err != nil {
		return nil, err
	}
	return &mcpsdk.CreateMessageResult{Content: &mcpsdk.TextContent{Text: res.Text}, Model: res.Model, Role: "assistant", StopReason: "endTurn"}, nil
}

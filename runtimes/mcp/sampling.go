package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
)

// Sampling (seed: "MCP's sampling (server requests LLM completion) maps to
// AIOS's AgentContext.ai.complete() but requires the bridge to hold an
// Inference capability"). A server may ask the bridge for a completion
// while it serves the bridge's tool calls; the bridge answers it through a
// call's Env.Complete, so the host checks Inference against the calling
// agent's grants intersected with the bridged server's provider grants (an
// Untrusted server holds none unless the operator grants it) and the
// completion is the host's configured inference. MCP does not say which
// call a request belongs to: with one call in flight it is that call's;
// with several, it is answered only when every one of them may use
// Inference (abi.Checker), so whichever caller it serves was allowed it,
// and it runs as the oldest call's. A request outside any call of the
// server, or while some call in flight may not use Inference, is refused.

// inflight tracks the Envs of a server's calls in flight.
type inflight struct {
	mu   sync.Mutex
	seq  uint64
	envs map[*abi.ToolCall]flight
}

type flight struct {
	ctx context.Context // the call's: a completion for it ends with it
	env abi.Env
	seq uint64 // order of arrival
}

func (f *inflight) add(ctx context.Context, c *abi.ToolCall, env abi.Env) func() {
	if env == nil {
		return func() {}
	}
	f.mu.Lock()
	if f.envs == nil {
		f.envs = map[*abi.ToolCall]flight{}
	}
	f.seq++
	f.envs[c] = flight{ctx, env, f.seq}
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.envs, c)
		f.mu.Unlock()
	}
}

// only returns the call in flight when there is exactly one.
func (f *inflight) only() (flight, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.envs) != 1 {
		return flight{}, false
	}
	for _, fl := range f.envs {
		return fl, true
	}
	return flight{}, false
}

// pick returns the call a sampling request is answered through: the one
// in flight, or, when several are, the oldest one if every one of them
// may use Inference; else why there is none.
func (f *inflight) pick() (flight, error) {
	f.mu.Lock()
	fs := make([]flight, 0, len(f.envs))
	for _, fl := range f.envs {
		fs = append(fs, fl)
	}
	f.mu.Unlock()
	switch len(fs) {
	case 0:
		return flight{}, fmt.Errorf("no call of the bridge to this server is in flight: sampling is answered only for the caller of a tool call")
	case 1:
		return fs[0], nil
	}
	slices.SortFunc(fs, func(a, b flight) int { return cmp.Compare(a.seq, b.seq) })
	for _, fl := range fs {
		c, ok := fl.env.(abi.Checker)
		if !ok {
			return flight{}, fmt.Errorf("%d calls of the bridge to this server are in flight: the sampling request cannot be tied to one caller's grants", len(fs))
		}
		if err := c.Check(abi.Capability{Kind: abi.CapInference}); err != nil {
			return flight{}, fmt.Errorf("%d calls of the bridge to this server are in flight and the request cannot be tied to one of them; call %s may not use Inference: %v",
				len(fs), fl.env.Call().ID, err)
		}
	}
	return fs[0], nil
}

// sampleHandler is sample with its refusals given a JSON-RPC code: the
// go-sdk sends a plain error with code 0, which is none of JSON-RPC's.
// What the request itself gets wrong is -32602 (Invalid params), any
// other refusal -32603 (Internal error), the reason its message.
func (s *server) sampleHandler(ctx context.Context, req *mcpsdk.CreateMessageWithToolsRequest) (*mcpsdk.CreateMessageWithToolsResult, error) {
	res, err := s.sample(ctx, req)
	var we *jsonrpc.Error
	if err != nil && !errors.As(err, &we) {
		err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return res, err
}

// sample answers a server's sampling/createMessage.
func (s *server) sample(ctx context.Context, req *mcpsdk.CreateMessageWithToolsRequest) (*mcpsdk.CreateMessageWithToolsResult, error) {
	p := req.Params
	if p == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "sampling/createMessage without params"}
	}
	if p.MaxTokens < 0 || p.MaxTokens > math.MaxInt32 {
		// The request's fault, said as such: the host's inference
		// refuses it (InvalidParams), which came back as -32603.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("sampling/createMessage: maxTokens %d: want 0 (the backend's default) to %d", p.MaxTokens, math.MaxInt32)}
	}
	fl, err := s.calls.pick()
	if err != nil {
		return nil, err
	}
	env := fl.env
	var prompt strings.Builder
	for i, m := range p.Messages {
		if m == nil {
			continue
		}
		if len(p.Messages) > 1 {
			fmt.Fprintf(&prompt, "%s: ", m.Role)
		}
		// A message may hold several blocks (2025-11-25): its texts, one
		// after the other, are its text.
		for j, c := range m.Content {
			text, ok := c.(*mcpsdk.TextContent)
			if !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("messages[%d].content[%d]: only text content can be sampled here (got %T)", i, j, c)}
			}
			if j > 0 {
				prompt.WriteByte('\n')
			}
			prompt.WriteString(text.Text)
		}
		prompt.WriteByte('\n')
	}
	if !slices.ContainsFunc(p.Messages, func(m *mcpsdk.SamplingMessageV2) bool { return m != nil }) {
		// Nothing to sample: the backend was asked to complete an
		// empty prompt, on the caller's account.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "sampling/createMessage has no message to sample (params.messages holds none)"}
	}
	cr := abi.CompleteRequest{Prompt: strings.TrimSuffix(prompt.String(), "\n"), System: p.SystemPrompt, MaxTokens: int(p.MaxTokens),
		Stop: p.StopSequences} // they were dropped: the answer ran on past the server's delimiter
	if p.Temperature != 0 || p.Meta[metaZeroTemperature] == true {
		t := p.Temperature
		cr.Temperature = &t
	}
	// The completion is the call's: it ends when the server withdraws
	// its request or when the call ends (its deadline, its caller's
	// cancel), whichever is first; it ran on to inference.timeout after
	// the call had ended.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if fl.ctx != nil {
		defer context.AfterFunc(fl.ctx, cancel)()
	}
	res, err := env.Complete(ctx, cr)
	if err != nil {
		return nil, err
	}
	// The server may go on from an answer cut at its maxTokens: "endTurn"
	// for every answer said it was whole.
	stop := "endTurn"
	switch res.FinishReason {
	case "", "stop":
	case "length":
		stop = "maxTokens"
	default:
		stop = res.FinishReason // MCP's stopReason is open
	}
	return &mcpsdk.CreateMessageWithToolsResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: res.Text}}, Model: res.Model, Role: "assistant", StopReason: stop}, nil
}

// metaZeroTemperature marks, in a sampling request's _meta, a temperature
// of 0 the server sent as such (markZeroTemperature): the go-sdk decodes
// the temperature into a float64 whose zero is "not given", so a request
// asking for 0 (an answer that must not vary) was sampled at the backend's
// default temperature.
const metaZeroTemperature = "org.aios/temperature-zero"

// markSamplingRequest is msg, a server's message, with its params
// marked (markZeroTemperature) when it is a sampling/createMessage
// request asking for temperature 0, and whether it was changed. Every
// message of a stdio or URL server passes through it before the go-sdk
// decodes it (msgBudget.mend); it was done for stdio servers alone, and a
// URL server's 0 was sampled at the backend's default.
func markSamplingRequest(msg []byte) ([]byte, bool) {
	if !bytes.Contains(msg, []byte("createMessage")) || !bytes.Contains(msg, []byte(`"temperature"`)) {
		return msg, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(msg, &top) != nil {
		return msg, false
	}
	var method string
	if json.Unmarshal(top["method"], &method) != nil || method != "sampling/createMessage" {
		return msg, false
	}
	params := markZeroTemperature(top["params"])
	if bytes.Equal(params, top["params"]) {
		return msg, false
	}
	top["params"] = params
	return appendMembers(nil, top), true
}

// markZeroTemperature is a sampling/createMessage request's params with
// metaZeroTemperature set in its _meta when its temperature is 0, else
// params as they are.
func markZeroTemperature(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params // the go-sdk says what is wrong with it
	}
	var t float64
	if raw, ok := m["temperature"]; !ok || json.Unmarshal(raw, &t) != nil || t != 0 {
		return params
	}
	var meta map[string]json.RawMessage
	if raw, ok := m["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[metaZeroTemperature] = json.RawMessage("true")
	var err error
	if m["_meta"], err = json.Marshal(meta); err != nil {
		return params
	}
	b, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return b
}

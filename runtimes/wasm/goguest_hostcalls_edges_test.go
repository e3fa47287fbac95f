package wasm

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// probeHostCallsGuestSrc is a Go guest making each host call with the
// arguments its params give.
const probeHostCallsGuestSrc = `package main

import aios "github.com/aios-host/aios-host/guest/go"

func init() {
	aios.Register(aios.Provider{ID: "org.example.probe.hostcalls", Capabilities: []string{"CallTool(*)", "ReadSpace(*)", "WriteSpace(*)", "Inference"}})
	aios.HandleFunc(aios.Tool{Name: "write-read"}, func(c *aios.Call, in struct{ Space string; N int; Nil bool }) (any, error) {
		var data []byte
		if !in.Nil {
			data = make([]byte, in.N)
			for i := range data {
				data[i] = byte(i)
			}
		}
		o, err := c.SpaceWrite(in.Space, data)
		if err != nil {
			return nil, err
		}
		r, err := c.SpaceRead(in.Space, o.ID)
		if err != nil {
			return nil, err
		}
		same := len(r.Data) == len(data)
		for i := 0; same && i < len(data); i++ {
			same = r.Data[i] == data[i]
		}
		return map[string]any{"id": o.ID, "space": r.Space, "len": len(r.Data), "same": same}, nil
	})
	aios.HandleFunc(aios.Tool{Name: "read"}, func(c *aios.Call, in struct{ Space, ID string }) (any, error) {
		o, err := c.SpaceRead(in.Space, in.ID)
		return o.ID, err
	})
	aios.HandleFunc(aios.Tool{Name: "write"}, func(c *aios.Call, in struct{ Space string }) (any, error) {
		o, err := c.SpaceWrite(in.Space, []byte("x"))
		return o.ID, err
	})
	aios.HandleFunc(aios.Tool{Name: "call"}, func(c *aios.Call, in struct{ Tool string }) (any, error) {
		return c.CallTool(in.Tool, map[string]any{})
	})
	aios.HandleFunc(aios.Tool{Name: "complete"}, func(c *aios.Call, in struct{ Prompt string; N int }) (any, error) {
		return c.Complete(aios.CompleteRequest{Prompt: in.Prompt, MaxTokens: in.N})
	})
}

func main() {}
`

// askedEnv records what the host was asked, refusing as the host does
// an empty tool name, ObjectId or space (InvalidParams).
type askedEnv struct {
	*fakeEnv
	mu    sync.Mutex
	asked []string
}

func (e *askedEnv) ask(s string) {
	e.mu.Lock()
	e.asked = append(e.asked, s)
	e.mu.Unlock()
}

func (e *askedEnv) CallTool(ctx context.Context, tool, version string, params any) (any, error) {
	e.ask("call_tool " + tool)
	return nil, abi.Errorf(abi.InvalidParams, "call_tool: no tool name")
}

func (e *askedEnv) SpaceRead(ctx context.Context, space, id string) (abi.Object, error) {
	e.ask("space_read " + space + " " + id)
	return abi.Object{}, abi.Errorf(abi.InvalidParams, "invalid ObjectId %q", id)
}

func (e *askedEnv) SpaceWrite(ctx context.Context, space string, data []byte) (abi.Object, error) {
	e.ask("space_write " + space)
	return abi.Object{}, abi.Errorf(abi.InvalidParams, "invalid space name %q", space)
}

func (e *askedEnv) Complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	e.ask("ai_complete " + req.Prompt)
	return abi.CompleteResponse{Text: "t", Model: "m"}, nil
}

// TestEmptyStringsReachHost: a Go guest's c.CallTool(""),
// c.SpaceRead("s", ""), c.SpaceWrite("", data) and c.Complete with an
// empty prompt were answered by the WASM runtime itself, InvalidRequest
// "request needs a non-empty string", where the same empty argument from
// JS, Python, native Go and components reaches the host, which answers
// InvalidParams saying why (an empty prompt goes to the backend). They
// reach the host now; a field of another type is still InvalidRequest.
func TestEmptyStringsReachHost(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, probeGoGuest(t, probeHostCallsGuestSrc))
	for _, c := range []struct {
		tool   string
		params map[string]any
		asked  string
		code   abi.ErrorCode
	}{
		{"call", map[string]any{"tool": ""}, "call_tool ", abi.InvalidParams},
		{"read", map[string]any{"space": "s", "id": ""}, "space_read s ", abi.InvalidParams},
		{"write", map[string]any{"space": ""}, "space_write ", abi.InvalidParams},
		{"complete", map[string]any{"prompt": ""}, "ai_complete ", ""},
	} {
		env := &askedEnv{fakeEnv: newFakeEnv(p, 4)}
		call := &abi.ToolCall{ID: "c1", Tool: c.tool, Params: c.params, Deadline: time.Now().Add(10 * time.Second)}
		env.call = call
		_, err := p.Call(context.Background(), call, env)
		if abi.CodeOf(err) != c.code || len(env.asked) != 1 || env.asked[0] != c.asked {
			t.Errorf("%s %v: %v, the host asked %q; want %q asked and %q", c.tool, c.params, err, env.asked, c.asked, c.code)
		}
	}
}

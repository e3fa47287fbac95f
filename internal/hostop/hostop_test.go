package hostop

import (
	"context"
	"encoding/base64"
	"log/slog"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

type env struct {
	wrote []byte
	req   abi.CompleteRequest
}

func (e *env) Call() *abi.ToolCall { return &abi.ToolCall{ID: "c"} }
func (e *env) CallTool(_ context.Context, tool, version string, params any) (any, error) {
	return map[string]any{"tool": tool, "version": version, "params": params}, nil
}
func (e *env) SpaceRead(_ context.Context, space, id string) (abi.Object, error) {
	return abi.Object{Space: "s", ID: id, Data: []byte{0, 1, 255}}, nil
}
func (e *env) SpaceWrite(_ context.Context, space string, data []byte) (abi.Object, error) {
	e.wrote = data
	return abi.Object{Space: space, ID: "sha256:x"}, nil
}
func (e *env) Complete(_ context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	e.req = req
	return abi.CompleteResponse{Text: "t", Model: "m"}, nil
}
func (e *env) Logger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestDo(t *testing.T) {
	e := &env{}
	ctx := context.Background()
	do := func(op string, args map[string]any) (any, error) {
		return Do(ctx, e, &abi.HostCall{CallID: "c", Op: op, Args: args})
	}
	v, err := do("space_read", map[string]any{"id": "sha256:y"})
	if err != nil || v.(map[string]any)["data"] != base64.StdEncoding.EncodeToString([]byte{0, 1, 255}) {
		t.Fatalf("space_read: %v %v", v, err)
	}
	if _, err := do("space_write", map[string]any{"space": "s", "data": base64.StdEncoding.EncodeToString([]byte("hi"))}); err != nil || string(e.wrote) != "hi" {
		t.Fatalf("space_write: %q %v", e.wrote, err)
	}
	if _, err := do("space_write", map[string]any{"space": "s", "data": "%%%"}); abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), "base64") {
		t.Fatalf("bad base64: %v", err)
	}
	if _, err := do("ai_complete", map[string]any{"prompt": "p", "max_tokens": int64(9), "temperature": int64(1)}); err != nil ||
		e.req.MaxTokens != 9 || e.req.Temperature == nil || *e.req.Temperature != 1 {
		t.Fatalf("ai_complete: %+v %v", e.req, err)
	}
	if _, err := do("call_tool", map[string]any{}); abi.CodeOf(err) != abi.InvalidParams {
		t.Fatalf("call_tool without a name: %v", err)
	}
	v, err = do("call_tool", map[string]any{"tool": "t"})
	if err != nil || v.(map[string]any)["params"] == nil {
		t.Fatalf("call_tool without params gets {}: %v %v", v, err)
	}
	if _, err := do("format_disk", nil); abi.CodeOf(err) != abi.InvalidRequest || !strings.Contains(err.Error(), "format_disk") {
		t.Fatalf("unknown op: %v", err)
	}
	if Level("warning") != slog.LevelWarn || Level("nope") != slog.LevelInfo {
		t.Fatal("Level")
	}
}

func TestAnswer(t *testing.T) {
	ctx := context.Background()
	hc := &abi.HostCall{CallID: "c", Op: "call_tool", Args: map[string]any{"tool": "t"}}
	if r := Answer(ctx, &env{}, "h1", hc, true, 0); r.Error != nil || r.CallID != "c" || r.Value == nil {
		t.Errorf("served call: %+v", r)
	}
	for _, tc := range []struct {
		name    string
		env     abi.Env
		hc      *abi.HostCall
		serving bool
		code    abi.ErrorCode
		says    string
	}{
		{"no host field", &env{}, nil, true, abi.InvalidRequest, "has no host field"},
		{"unknown call", &env{}, hc, false, abi.InvalidRequest, "which this worker is not serving"},
		{"no services", nil, hc, true, abi.Unavailable, "no host services"},
	} {
		r := Answer(ctx, tc.env, "h1", tc.hc, tc.serving, 0)
		if r.Error == nil || r.Error.Code != tc.code || !strings.Contains(r.Error.Message, tc.says) {
			t.Errorf("%s: %+v", tc.name, r.Error)
		}
	}
}

package mcp

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// startPromptHost runs the fake server in prompts mode behind a host.
func startPromptHost(t *testing.T, sc ServerConfig) (*host.Host, *syncBuffer) {
	t.Helper()
	h, err := host.New(host.Options{Config: config.Default(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	logs := &syncBuffer{}
	b, err := New(Options{Servers: map[string]ServerConfig{"p": sc},
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Publish: func(ctx context.Context, p abi.Provider, source string) error {
			return h.ReplaceProvider(ctx, p, host.ProviderMeta{Source: "mcp:" + source, Trust: abi.Untrusted, Partial: true})
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h, logs
}

func promptTools(h *host.Host) []string {
	var names []string
	for _, e := range h.Registry().Tools() {
		if strings.HasPrefix(e.Def.Name, "mcp-p-prompt-") {
			names = append(names, e.Def.Name)
		}
	}
	slices.Sort(names)
	return names
}

// TestPrompts: a server's prompts become tools whose parameters are the
// prompt's arguments and whose result is prompts/get's messages; prompts
// that cannot be named or whose arguments repeat are skipped, logged; a
// missing required argument or an unknown one is InvalidParams before the
// server is asked; a malformed result is ProviderError, as a tool's.
func TestPrompts(t *testing.T) {
	h, logs := startPromptHost(t, fakeConfig(t, "prompts"))
	want := []string{"mcp-p-prompt-broken", "mcp-p-prompt-code_review", "mcp-p-prompt-plain"}
	if got := promptTools(h); !slices.Equal(got, want) {
		t.Fatalf("prompt tools = %v, want %v", got, want)
	}
	for _, w := range []string{`prompt \"!!!\": its name has no ASCII letter or digit`, `prompt \"twice\": argument \"a\" listed twice`} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log lacks %s:\n%s", w, logs.String())
		}
	}
	cr, err := h.Registry().Resolve("mcp-p-prompt-code_review", "")
	if err != nil || !strings.Contains(cr.Def.Description, "code_review: Review a piece of code") || !slices.Contains(cr.Def.Tags, "prompt") {
		t.Fatalf("code_review tool: %+v %v", cr, err)
	}
	call := func(tool string, params map[string]any) (any, error) {
		return h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: tool, Params: params, Deadline: time.Now().Add(5 * time.Second)})
	}
	v, err := call("mcp-p-prompt-code_review", map[string]any{"code": "x := 1", "style": "haiku"})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := v.(map[string]any)["messages"].([]any)
	if len(msgs) != 1 || v.(map[string]any)["description"] != "a review" {
		t.Fatalf("code_review = %v", v)
	}
	m := msgs[0].(map[string]any)
	if m["role"] != "user" || m["content"].(map[string]any)["text"] != "Review this code in haiku: x := 1" {
		t.Fatalf("code_review message = %v", m)
	}
	if v, err := call("mcp-p-prompt-plain", nil); err != nil || v.(map[string]any)["messages"].([]any)[0].(map[string]any)["role"] != "assistant" {
		t.Fatalf("plain = %v %v", v, err)
	}
	for _, tc := range []struct {
		tool   string
		params map[string]any
		code   abi.ErrorCode
		msg    string
	}{
		{"mcp-p-prompt-code_review", map[string]any{"style": "x"}, abi.InvalidParams, "code"},
		{"mcp-p-prompt-code_review", map[string]any{"code": "c", "colour": "red"}, abi.InvalidParams, "colour"},
		{"mcp-p-prompt-code_review", map[string]any{"code": 7}, abi.InvalidParams, "/code"},
		{"mcp-p-prompt-broken", nil, abi.ProviderError, "nil content"}, // the go-sdk refuses the result, as a malformed tool result
	} {
		_, err := call(tc.tool, tc.params)
		if abi.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %v: %v, want %s naming %s", tc.tool, tc.params, err, tc.code, tc.msg)
		}
	}
}

// TestPromptsListChanged: notifications/prompts/list_changed makes the
// bridge list again, and a prompt added since is a tool.
func TestPromptsListChanged(t *testing.T) {
	h, _ := startPromptHost(t, fakeConfig(t, "prompts"))
	if _, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "mcp-p-grow", Params: map[string]any{}, Deadline: time.Now().Add(5 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(promptTools(h), "mcp-p-prompt-later") {
		if time.Now().After(deadline) {
			t.Fatalf("after prompts/list_changed the prompt tools are %v, without mcp-p-prompt-later", promptTools(h))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPromptsOff: prompts: false imports none.
func TestPromptsOff(t *testing.T) {
	sc := fakeConfig(t, "prompts")
	off := false
	sc.Prompts = &off
	h, _ := startPromptHost(t, sc)
	if got := promptTools(h); len(got) != 0 {
		t.Fatalf("prompt tools with prompts: false: %v", got)
	}
	if _, err := h.Registry().Resolve("mcp-p-echo", ""); err != nil {
		t.Fatalf("the server's tools: %v", err)
	}
}

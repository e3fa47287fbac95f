package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// BenchmarkBridgeCallStdio is one tools/call through the bridge to a stdio
// server (this test binary as the fake), provider level (no host).
func BenchmarkBridgeCallStdio(b *testing.B) {
	rec := newRecorder()
	br, err := New(Options{Servers: map[string]ServerConfig{"fake": fakeConfig(b, "noresources")}, Publish: rec.publish})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	if err := br.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	call := &abi.ToolCall{ID: "b", Tool: "mcp-fake-echo", Params: map[string]any{"message": "hello"}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		call.Deadline = time.Now().Add(5 * time.Second)
		if _, err := p.Call(ctx, call, nil); err != nil {
			b.Fatal(err)
		}
	}
}

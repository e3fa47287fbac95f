package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchCall runs tools/call echo over streamable HTTP on loopback against
// handler, b.N times.
func benchCall(b *testing.B, handler func() *httptest.Server) {
	srv := handler()
	defer srv.Close()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench"}, nil).Connect(context.Background(),
		&mcpsdk.StreamableClientTransport{Endpoint: srv.URL + Path, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": map[string]any{"msg": "hello", "n": 42}}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkMCPHTTPCall is tools/call over streamable HTTP on loopback
// through aios-host: the host pipeline (lookup, capability check, rate
// limit, schema validation, deadline, result normalization) in front of a
// native echo tool.
func BenchmarkMCPHTTPCall(b *testing.B) {
	_, s := newTestHost(b, "audit:\n  disabled: true\nmcp:\n  http:\n    anonymous_agent: mcp\n")
	benchCall(b, func() *httptest.Server { return httptest.NewServer(s.Handler()) })
}

// BenchmarkMCPHTTPCallDirect is the same call served by the go-sdk's own
// server calling the same Go function (echoFunc) directly.
func BenchmarkMCPHTTPCallDirect(b *testing.B) {
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "direct"}, nil)
	srv.AddTool(&mcpsdk.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			var in struct {
				Value any `json:"value"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return successResult(echoFunc(in.Value), false)
		})
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return srv }, nil)
	benchCall(b, func() *httptest.Server {
		mux := http.NewServeMux()
		mux.Handle(Path, h)
		return httptest.NewServer(mux)
	})
}

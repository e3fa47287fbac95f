package mcp

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// probeNumbers is a structuredContent whose numbers a float64 cannot all
// hold: integers beyond ±2^53 and whole floats from 2^53 up.
const probeNumbers = `{"n":9007199254740993,"u":18446744073709551615,"m":-9223372036854775808,"f":1.152921504606847e+18,"g":1e20,"h":0.1,"s":"x"}`

func probeNumbersWant() map[string]any {
	return map[string]any{"n": int64(9007199254740993), "u": uint64(math.MaxUint64), "m": int64(math.MinInt64),
		"f": float64(1 << 60), "g": 1e20, "h": 0.1, "s": "x"}
}

// TestStructuredNumbersExact: a server's structuredContent reaches
// the caller with its numbers as the server wrote them, over stdio and
// HTTP, with an output schema and in the envelope, though its text block
// is a summary (not the JSON the bridge could read them from again).
func TestStructuredNumbersExact(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "numbers")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	got, err := call(t, p, "mcp-fake-nums", map[string]any{}, 5*time.Second)
	if want := probeNumbersWant(); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("stdio, output schema: got %#v, %v\nwant %#v", got, err, want)
	}
	got, err = call(t, p, "mcp-fake-numsenv", map[string]any{}, 5*time.Second)
	m, _ := got.(map[string]any)
	if want := probeNumbersWant(); err != nil || !reflect.DeepEqual(m["structuredContent"], want) {
		t.Errorf("stdio, envelope: got %#v, %v\nwant %#v", got, err, want)
	}

	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "1"}, nil)
	s.AddTool(&mcpsdk.Tool{Name: "nums", InputSchema: map[string]any{"type": "object"}, OutputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "5 numbers"}},
				StructuredContent: json.RawMessage(probeNumbers)}, nil
		})
	for _, jsonResponse := range []bool{false, true} {
		srv := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s },
			&mcpsdk.StreamableHTTPOptions{JSONResponse: jsonResponse}))
		t.Cleanup(srv.Close) // (before the bridge's: it closes first)
		_, rec, _, err := startBridge(t, map[string]ServerConfig{"remote": {URL: srv.URL, ConnectTimeout: 5 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := call(t, rec.provider("org.aios.mcp.remote"), "mcp-remote-nums", map[string]any{}, 5*time.Second)
		if want := probeNumbersWant(); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("HTTP (JSON response %v): got %#v, %v\nwant %#v", jsonResponse, got, err, want)
		}
	}
}

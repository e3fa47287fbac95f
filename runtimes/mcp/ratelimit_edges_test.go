package mcp

import (
	"encoding/json"
	"errors"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
)

// TestRemoteRateLimitedKeepsRetry: a RateLimited error of an aios
// host behind an MCP server keeps its retry hint through the bridge
// (abi: RateLimited's data has retry_after_ms): the code came through, the
// hint was dropped, so a caller of the bridged tool had no time to wait.
// Only a sane whole number of milliseconds is taken from the remote.
func TestRemoteRateLimitedKeepsRetry(t *testing.T) {
	for _, tc := range []struct {
		meta string
		want any // retry_after_ms, nil for none
	}{
		{`{"code":"RateLimited","data":{"retry_after_ms":1500,"limit":"rate_limits.global"}}`, int64(1500)},
		{`{"code":"RateLimited","data":{"retry_after_ms":0.2}}`, int64(1)},
		{`{"code":"RateLimited","data":{"retry_after_ms":-5}}`, nil},
		{`{"code":"RateLimited","data":{"retry_after_ms":"soon"}}`, nil},
		{`{"code":"RateLimited","data":{"retry_after_ms":1e300}}`, nil},
		{`{"code":"RateLimited"}`, nil},
		{`{"code":"Timeout","data":{"retry_after_ms":5}}`, nil},
	} {
		var r mcpsdk.CallToolResult
		if err := json.Unmarshal([]byte(`{"isError":true,"content":[{"type":"text","text":"slow down"}],"_meta":{"org.aios/error":`+tc.meta+`}}`), &r); err != nil {
			t.Fatal(err)
		}
		_, err := toolResult("s", "t", &r, false)
		var te *abi.ToolError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v", tc.meta, err)
		}
		var got any
		if d, ok := te.Data.(map[string]any); ok {
			got = d["retry_after_ms"]
		}
		if got != tc.want {
			t.Errorf("%s: data %#v, want retry_after_ms %v", tc.meta, te.Data, tc.want)
		}
	}
}

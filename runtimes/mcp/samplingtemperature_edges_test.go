package mcp

import (
	"fmt"
	"strings"
	"testing"
)

// TestSamplingTemperatureZero: a server's sampling request asking for
// temperature 0 (the usual setting for an answer that must not vary: a
// classification, an extraction) was sampled at the backend's default
// temperature: the go-sdk decodes the request's temperature into a number
// whose zero is "not given", and the bridge passed on none. A temperature
// 0 sent as such is passed on as 0; one not sent is still none.
func TestSamplingTemperatureZero(t *testing.T) {
	cfg := fakeConfig(t, "sampling")
	cfg.Sampling = true
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	hi := []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "say hi"}}}
	for _, tc := range []struct {
		temp any // nil: not sent
		want string
	}{{0, "0"}, {0.0, "0"}, {0.5, "0.5"}, {nil, "none"}} {
		params := map[string]any{"maxTokens": 10, "messages": hi}
		if tc.temp == 0.0 {
			params["_meta"] = map[string]any{"x": 1} // kept beside the mark
		}
		if tc.temp != nil {
			params["temperature"] = tc.temp
		}
		text, got := sampleWith(t, p, params)
		temp := "none"
		if got.Temperature != nil {
			temp = fmt.Sprint(*got.Temperature)
		}
		if !strings.Contains(text, "sampled: hi there") || temp != tc.want {
			t.Errorf("temperature %v: %s; the backend was asked temperature %s, want %s", tc.temp, text, temp, tc.want)
		}
	}
}

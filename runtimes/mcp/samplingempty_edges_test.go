package mcp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSamplingWithoutMessagesRefused: a server's sampling request with no
// message to sample ("messages": [], or only nulls) asked the host's
// inference to complete an empty prompt, on the caller's account and
// rate, and answered whatever the model made of nothing. It is -32602
// saying there is no message, and no completion is asked for.
func TestSamplingWithoutMessagesRefused(t *testing.T) {
	cfg := fakeConfig(t, "sampling")
	cfg.Sampling = true
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	for name, msgs := range map[string]any{"empty": []any{}, "nulls": []any{nil, nil}, "absent": nil} {
		params := map[string]any{"maxTokens": 10}
		if msgs != nil {
			params["messages"] = msgs
		}
		text, got := sampleWith(t, p, params)
		if !strings.Contains(text, `"code":-32602`) || !strings.Contains(text, "no message") {
			t.Errorf("messages %s: %s; want -32602 saying there is no message", name, text)
		}
		if !reflect.DeepEqual(got, abi.CompleteRequest{}) {
			t.Errorf("messages %s: a completion was asked for: %+v", name, got)
		}
	}
}

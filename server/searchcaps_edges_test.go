package server

import (
	"context"
	"strings"
	"testing"
)

// TestSearchCardFeatureMisspeltRefused: aios/registry.search refuses a
// capability that is neither a card feature nor a capability (an empty
// answer to a mistake), but a card feature in another case or a letter
// off ("Streaming", "streming") parsed as a custom capability kind that
// no adapter holds and was answered with no adapters (found by p120).
// Now it is refused naming the card feature meant.
func TestSearchCardFeatureMisspeltRefused(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	for bad, meant := range map[string]string{"Streaming": "streaming", "STREAMING": "streaming", "streming": "streaming",
		"batch_operation": "batch_operations", "Push_Notifications": "push_notifications"} {
		err := c.Call(context.Background(), "aios/registry.search", map[string]any{"capabilities": []string{bad}}, nil)
		if code, _ := rpcCode(err); code != -32602 || !strings.Contains(err.Error(), `"`+bad+`"`) || !strings.Contains(err.Error(), `did you mean "`+meant+`"`) {
			t.Errorf("capabilities [%q]: %v, want -32602 naming it and %q", bad, err, meant)
		}
	}
	var res struct{ Total int }
	for _, good := range []string{"streaming", "CallTool(*)", "Billing(team-a)"} {
		if err := c.Call(context.Background(), "aios/registry.search", map[string]any{"capabilities": []string{good}}, &res); err != nil {
			t.Errorf("capabilities [%q]: %v", good, err)
		}
	}
}

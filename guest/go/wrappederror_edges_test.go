package aios

import (
	"fmt"
	"strings"
	"testing"
)

// TestWrappedErrorKeepsCode: a handler that adds context to a host
// call's refusal, as Go code does (`return nil, fmt.Errorf("fetching
// thumbnails: %w", err)`), sent the caller a ProviderError: the *aios.Error
// inside (the nested call's NotFound, CapabilityDenied, Timeout…) and its
// data were lost, where a native Go tool's wrapped *abi.ToolError keeps its
// code (errors.As). The SDK finds an *aios.Error anywhere in the chain.
func TestWrappedErrorKeepsCode(t *testing.T) {
	probeTool(t, "probe-wrapped", func() {
		Handle(Tool{Name: "probe-wrapped"}, func(c *Call, p any) (any, error) {
			_, err := c.CallTool("thumbnails", nil) // off wasip1: the host's Unavailable
			return nil, fmt.Errorf("fetching thumbnails: %w", err)
		})
	})
	probeTool(t, "probe-wrapped-data", func() {
		Handle(Tool{Name: "probe-wrapped-data"}, func(c *Call, p any) (any, error) {
			e := &Error{Code: Conflict, Message: "taken", Data: map[string]any{"owner": "bob"}}
			return nil, fmt.Errorf("reserving: %w", e)
		})
	})
	_, terr := serveResult(t, "probe-wrapped", nil)
	if terr == nil || terr.Code != Unavailable || !strings.Contains(terr.Message, "fetching thumbnails") || !strings.Contains(terr.Message, "no AIOS host") {
		t.Errorf("wrapped host-call error: %+v; want the host's Unavailable, with the handler's context and the host's message", terr)
	}
	_, terr = serveResult(t, "probe-wrapped-data", nil)
	if m, _ := terr.Data.(map[string]any); terr == nil || terr.Code != Conflict || m["owner"] != "bob" || !strings.Contains(terr.Message, "reserving") || !strings.Contains(terr.Message, "taken") {
		t.Errorf("wrapped *aios.Error: %+v; want Conflict with its data and both messages", terr)
	}
}

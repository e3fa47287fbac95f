package hostop

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestCompletePromptNull: a Python tool's ctx.ai.complete(None) (a prompt
// variable left None) sent {"prompt": null}, read as "": the backend was
// asked to complete an empty prompt, on the caller's inference.rate, where
// JS's ctx.ai.complete(null) and a WASM guest's ai_complete without a
// prompt are refused. It is refused naming "prompt", the backend not asked.
func TestCompletePromptNull(t *testing.T) {
	for name, args := range map[string]map[string]any{
		"null":    {"prompt": nil, "system": "s"},
		"missing": {"system": "s"},
	} {
		e := &env{}
		_, err := Do(context.Background(), e, &abi.HostCall{CallID: "c", Op: "ai_complete", Args: args})
		if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), `"prompt"`) || e.req.System != "" {
			t.Errorf("%s: %v (env got %+v); want InvalidParams naming \"prompt\", Complete not called", name, err, e.req)
		}
	}
	// An empty string is a prompt the tool chose.
	e := &env{}
	if _, err := Do(context.Background(), e, &abi.HostCall{CallID: "c", Op: "ai_complete", Args: map[string]any{"prompt": "", "system": "s"}}); err != nil || e.req.System != "s" {
		t.Errorf("empty prompt: %v (env got %+v); want it asked", err, e.req)
	}
}

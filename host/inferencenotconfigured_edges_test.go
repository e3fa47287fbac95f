package host

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestInferenceNotConfiguredSaysWhere: without inference.url a completion
// (the README's summarize, run with no flags) answered "… set
// inference.url … in the config file", while the host had read no file:
// a newcomer was not told how to give one. The message names --config
// and the example that lists the keys.
func TestInferenceNotConfiguredSaysWhere(t *testing.T) {
	c := newInferenceClient(config.Inference{}, nil)
	_, err := c.complete(context.Background(), abi.CompleteRequest{Prompt: "hi"})
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.Unavailable || !strings.Contains(te.Message, "inference.url") ||
		!strings.Contains(te.Message, "--config") || !strings.Contains(te.Message, "config/example.yaml") {
		t.Errorf("complete without inference.url: %v; want Unavailable naming inference.url, --config and config/example.yaml", err)
	}
}

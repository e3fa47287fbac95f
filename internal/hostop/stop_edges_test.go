package hostop

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestCompleteStop: ai_complete's "stop" (chat-completions' stop
// sequences, as an MCP server's sampling gives them) was not read: a
// string is one sequence, an array of strings several; another type, or
// an array holding another, is refused naming "stop" and the backend not
// asked.
func TestCompleteStop(t *testing.T) {
	for name, c := range map[string]struct {
		stop any
		want []string
	}{
		"array":  {[]any{"\n\n", "END"}, []string{"\n\n", "END"}},
		"string": {"X", []string{"X"}},
		"null":   {nil, nil},
	} {
		e := &env{}
		if _, err := Do(context.Background(), e, &abi.HostCall{CallID: "c", Op: "ai_complete", Args: map[string]any{"prompt": "p", "stop": c.stop}}); err != nil || !reflect.DeepEqual(e.req.Stop, c.want) {
			t.Errorf("%s: %v; env got stop %q, want %q", name, err, e.req.Stop, c.want)
		}
	}
	for name, stop := range map[string]any{
		"number":         int64(7),
		"number in list": []any{"a", int64(7)},
		"object":         map[string]any{"a": "b"},
	} {
		e := &env{}
		_, err := Do(context.Background(), e, &abi.HostCall{CallID: "c", Op: "ai_complete", Args: map[string]any{"prompt": "p", "stop": stop}})
		if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), `"stop"`) || e.req.Prompt != "" {
			t.Errorf("%s: %v (env got %+v); want InvalidParams naming \"stop\", Complete not called", name, err, e.req)
		}
	}
}

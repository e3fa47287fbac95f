package host

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestParamsErrorNamesResolvedVersion: with several versions of a tool
// side by side, a call whose params fail the schema of the version its
// constraint chose was refused as "params of greet violate its schema:
// at /: missing required property "lang"" — naming no version, although
// the default greet (1.0.0) has no lang at all, so the caller could not
// tell which schema refused it. The refusal names the version that
// refused the params (greet@1.2.0), as a result-schema, timeout or
// permission error does.
func TestParamsErrorNamesResolvedVersion(t *testing.T) {
	te := newTestHost(t, nil)
	ok := func(context.Context, any, abi.Env) (any, error) { return "ok", nil }
	p := native.New(abi.ProviderInfo{ID: "org.test.greet"})
	p.MustRegister(abi.ToolDef{Name: "greet", Version: "1.0.0", Parameters: map[string]any{"type": "object"}}, ok)
	p2 := native.New(abi.ProviderInfo{ID: "org.test.greet2"})
	p2.MustRegister(abi.ToolDef{Name: "greet", Version: "1.2.0", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"lang": map[string]any{"type": "string"}}, "required": []any{"lang"},
	}}, ok)
	for _, pr := range []*native.Provider{p, p2} {
		if err := te.h.AddProvider(context.Background(), pr, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "greet", Version: "^1.2", Params: map[string]any{}})
	var terr *abi.ToolError
	if !errors.As(err, &terr) || terr.Code != abi.InvalidParams {
		t.Fatalf("call greet ^1.2 without lang: %v, want InvalidParams", err)
	}
	if !strings.Contains(terr.Message, "params of greet@1.2.0 violate its schema") || !strings.Contains(terr.Message, `"lang"`) {
		t.Errorf("message %q does not name greet@1.2.0 and the missing lang", terr.Message)
	}
}

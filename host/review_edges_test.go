package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A tool in flight at Close that then calls another tool (a nested call):
// the nested dispatch counts itself and is refused (the host is closed),
// the outer call ends with that error, and Close returns without waiting
// out its 5 s or reporting calls left running. No defect.
func TestCloseNestedCallInFlight(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	p := native.New(abi.ProviderInfo{ID: "org.x.outer", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "outer", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		close(entered)
		<-release
		return env.CallTool(ctx, "inner", "", nil)
	})
	p.MustRegister(abi.ToolDef{Name: "inner", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		return "inner", nil
	})
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		_, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "outer", Deadline: time.Now().Add(time.Minute)})
		res <- err
	}()
	<-entered
	closed := make(chan error, 1)
	go func() { closed <- h.Close() }()
	for !h.closed.Load() {
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-res; abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("the outer call: %v, want Unavailable (its nested call refused)", err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// A parameters schema whose required names a property declared elsewhere
// than its top-level properties (an allOf/anyOf/oneOf branch, a $ref, an
// if/then, or allowed by an additionalProperties schema) was warned about
// at registration as requiring "properties they do not declare" that "a
// call must send although the schema does not describe them": a false
// warning for a valid, common schema. Such schemas are not judged now.
func TestRequiredDeclaredElsewhereNotWarned(t *testing.T) {
	h, logs := loggedHost(t)
	ok := func(context.Context, any, abi.Env) (any, error) { return "ok", nil }
	props := map[string]any{"a": map[string]any{"type": "string"}}
	p := native.New(abi.ProviderInfo{ID: "org.test.reqelse"})
	for name, extra := range map[string]map[string]any{
		"via-allof": {"allOf": []any{map[string]any{"properties": map[string]any{"b": map[string]any{"type": "string"}}}}},
		"via-anyof": {"anyOf": []any{map[string]any{"properties": map[string]any{"b": map[string]any{"type": "string"}}}}},
		"via-addl":  {"additionalProperties": map[string]any{"type": "string"}},
		"via-then":  {"if": map[string]any{"required": []any{"a"}}, "then": map[string]any{"properties": map[string]any{"b": map[string]any{}}}},
	} {
		params := map[string]any{"type": "object", "properties": props, "required": []any{"b"}}
		for k, v := range extra {
			params[k] = v
		}
		p.MustRegister(abi.ToolDef{Name: name, Version: "1.0.0", Parameters: params}, ok)
	}
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "reqelse.js", Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	if out := logs.String(); strings.Contains(out, "do not declare") {
		t.Errorf("a schema declaring the property elsewhere was warned about:\n%s", out)
	}
}

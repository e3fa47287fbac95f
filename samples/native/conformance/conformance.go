// Package conformance is the native runtime's conformance provider
// (org.aios.conformance.native) and the harness's peer provider
// (org.aios.conformance.peer): the tools of the conformance contract
// (see conformance/README.md) written as native Go tools.
//
// It imports abi and runtimes/native only; it must never import host.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// Schemas of the contract, shared with the peer provider.
func echoSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"value": map[string]any{}}, "required": []any{"value"}}
}

func objectSchema() map[string]any { return map[string]any{"type": "object"} }

// New returns the native conformance provider, org.aios.conformance.native.
func New() *native.Provider {
	p := native.New(abi.ProviderInfo{
		ID:           "org.aios.conformance.native",
		Name:         "Native conformance provider",
		Version:      "1.0.0",
		Description:  "The conformance contract's tools as native Go tools",
		Capabilities: []string{"CallTool(*)"},
	})
	p.MustRegister(abi.ToolDef{Name: "echo", Version: "1.0.0", Description: "Returns {value: params.value} unchanged", Parameters: echoSchema()}, echo)
	p.MustRegister(abi.ToolDef{
		Name: "add", Version: "1.0.0", Description: "Adds two integers",
		Parameters: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
			"required":             []any{"a", "b"},
			"additionalProperties": false,
		},
		Returns: map[string]any{"type": "object", "properties": map[string]any{"sum": map[string]any{"type": "integer"}}, "required": []any{"sum"}},
	}, native.Typed(add))
	p.MustRegister(abi.ToolDef{
		Name: "fail", Version: "1.0.0", Description: "Fails with params.message",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "required": []any{"message"}},
	}, fail)
	p.MustRegister(abi.ToolDef{
		Name: "sleep", Version: "1.0.0", Description: "Sleeps params.ms milliseconds, honouring the deadline",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"ms": map[string]any{"type": "integer", "minimum": 0}}, "required": []any{"ms"}},
	}, native.Typed(sleep))
	p.MustRegister(abi.ToolDef{Name: "crash", Version: "1.0.0", Description: "Panics", Parameters: objectSchema()}, crash)
	p.MustRegister(abi.ToolDef{
		Name: "secret", Version: "1.0.0", Description: "Needs ReadSpace(secret) from its caller",
		Parameters: objectSchema(), CapabilityRequired: []string{"ReadSpace(secret)"},
	}, secret)
	p.MustRegister(abi.ToolDef{
		Name: "nested", Version: "1.0.0", Description: "Calls params.tool with params.params through the host",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"tool": map[string]any{"type": "string"}, "params": map[string]any{"type": "object"}},
			"required":   []any{"tool", "params"},
		},
	}, nested)
	return p
}

// NewPeer returns the harness's peer provider, org.aios.conformance.peer,
// with peer-echo (like echo), peer-value (returns params.value bare, not
// wrapped in an object) and peer-secret (needs ReadSpace(secret)).
func NewPeer() *native.Provider {
	p := native.New(abi.ProviderInfo{
		ID:          "org.aios.conformance.peer",
		Name:        "Conformance peer",
		Version:     "1.0.0",
		Description: "Target of the conformance harness's nested calls",
	})
	p.MustRegister(abi.ToolDef{Name: "peer-echo", Version: "1.0.0", Description: "Returns {value: params.value}", Parameters: echoSchema()}, echo)
	p.MustRegister(abi.ToolDef{Name: "peer-value", Version: "1.0.0", Description: "Returns params.value itself", Parameters: echoSchema()}, bare)
	p.MustRegister(abi.ToolDef{
		Name: "peer-secret", Version: "1.0.0", Description: "Needs ReadSpace(secret) from its caller",
		Parameters: objectSchema(), CapabilityRequired: []string{"ReadSpace(secret)"},
	}, secret)
	return p
}

func bare(_ context.Context, params any, _ abi.Env) (any, error) {
	m, _ := params.(map[string]any)
	return m["value"], nil
}

func echo(_ context.Context, params any, _ abi.Env) (any, error) {
	m, _ := params.(map[string]any)
	return map[string]any{"value": m["value"]}, nil
}

type addIn struct {
	A int64 `json:"a"`
	B int64 `json:"b"`
}

// add returns the exact sum, or fails when it does not fit an int64: never
// a wrapped value (the conformance row "add").
func add(_ context.Context, in addIn, _ abi.Env) (map[string]any, error) {
	s := in.A + in.B
	if (s > in.A) != (in.B > 0) {
		return nil, &abi.ToolError{Code: abi.ProviderError, Message: fmt.Sprintf("%d + %d does not fit a 64-bit integer", in.A, in.B)}
	}
	return map[string]any{"sum": s}, nil
}

func fail(_ context.Context, params any, _ abi.Env) (any, error) {
	m, _ := params.(map[string]any)
	msg, _ := m["message"].(string)
	return nil, errors.New(msg)
}

type sleepIn struct {
	MS int64 `json:"ms"`
}

func sleep(ctx context.Context, in sleepIn, _ abi.Env) (map[string]any, error) {
	d := time.Duration(math.MaxInt64)
	if in.MS < math.MaxInt64/int64(time.Millisecond) {
		d = time.Duration(in.MS) * time.Millisecond
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return map[string]any{"slept": in.MS}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func crash(context.Context, any, abi.Env) (any, error) {
	panic("conformance crash tool: deliberate panic")
}

func secret(context.Context, any, abi.Env) (any, error) {
	return map[string]any{"ok": true}, nil
}

func nested(ctx context.Context, params any, env abi.Env) (any, error) {
	m, _ := params.(map[string]any)
	toolName, _ := m["tool"].(string)
	v, err := env.CallTool(ctx, toolName, "", m["params"])
	if err != nil {
		return nil, err // a nested *abi.ToolError passes through unchanged
	}
	return map[string]any{"result": v}, nil
}

// Command complexity-gate is the cross-runtime demo: a WASM tool that calls
// the native Go tool analyze-complexity through aios.call_tool and turns its
// answer into a pass/fail verdict. The caller never learns which runtime
// served which part.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o complexity-gate.wasm .
package main

import (
	aios "github.com/aios-host/aios-host/guest/go"
)

type params struct {
	ObjectID string `json:"object_id"`
	Max      int64  `json:"max"`
}

func init() {
	aios.Register(aios.Provider{
		ID:      "org.aios.samples.complexity-gate",
		Name:    "Complexity gate (WASM → native)",
		Version: "1.0.0",
		// analyze-complexity requires ReadSpace(source) of its caller, and a
		// nested call holds the caller's grants ∩ these.
		Capabilities: []string{"CallTool(analyze-complexity)", "ReadSpace(source)"},
	})
	aios.HandleFunc(aios.Tool{
		Name:               "complexity-gate",
		Description:        "Fails a Go source object whose cyclomatic complexity is above max (default 10), using the native analyze-complexity tool.",
		Version:            "1.0.0",
		CapabilityRequired: []string{"ReadSpace(source)"},
		Parameters: aios.Schema(`{"type":"object","properties":{
			"object_id":{"type":"string"},"max":{"type":"integer","minimum":1}},
			"required":["object_id"],"additionalProperties":false}`),
	}, func(c *aios.Call, p params) (map[string]any, error) {
		if p.Max == 0 {
			p.Max = 10
		}
		v, err := c.CallTool("analyze-complexity", map[string]any{"object_id": p.ObjectID, "language": "go"})
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		cx, _ := m["complexity"].(int64)
		return map[string]any{
			"complexity": cx,
			"rating":     m["rating"],
			"max":        p.Max,
			"passed":     cx <= p.Max,
			"via":        "wasm→native",
		}, nil
	})
}

func main() {}

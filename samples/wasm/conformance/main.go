// Command conformance is the WASM conformance provider
// (org.aios.conformance.wasm): the tools of the conformance table in
// docs/abi.md and TEAM.md, written with the Go guest SDK.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o conformance.wasm .
package main

import (
	"math"
	"time"

	aios "github.com/aios-host/aios-host/guest/go"
	"github.com/aios-host/aios-host/guest/go/wire"
)

func init() {
	aios.Register(aios.Provider{
		ID:           "org.aios.conformance.wasm",
		Name:         "WASM conformance provider",
		Version:      "1.0.0",
		Capabilities: []string{"CallTool(*)"},
	})
	// echo works on the encoded bytes: it copies params.value through
	// without building generic values (the SDK's fastest form).
	aios.HandleRaw(aios.Tool{
		Name:        "echo",
		Description: "Returns params.value unchanged.",
		Parameters:  aios.Schema(`{"type":"object","properties":{"value":{}},"required":["value"]}`),
	}, func(c *aios.Call, params, out []byte) ([]byte, error) {
		v, ok, err := wire.MapField(params, "value")
		if err != nil || !ok {
			return nil, aios.Errorf(aios.InvalidParams, "echo needs params.value")
		}
		return append(wire.AppendString(wire.AppendMapHeader(out, 1), "value"), v...), nil
	})
	aios.HandleFunc(aios.Tool{
		Name:        "add",
		Description: "Adds two integers.",
		Parameters:  aios.Schema(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`),
	}, func(c *aios.Call, in struct{ A, B int64 }) (map[string]any, error) {
		// The exact sum, or an error: never a wrapped value.
		s := in.A + in.B
		if (s > in.A) != (in.B > 0) {
			return nil, aios.Errorf(aios.ProviderError, "%d + %d does not fit a 64-bit integer", in.A, in.B)
		}
		return map[string]any{"sum": s}, nil
	})
	aios.HandleFunc(aios.Tool{
		Name:       "fail",
		Parameters: aios.Schema(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`),
	}, func(c *aios.Call, in struct{ Message string }) (any, error) {
		return nil, aios.Errorf(aios.ProviderError, "failed as asked: %s", in.Message)
	})
	aios.HandleFunc(aios.Tool{
		Name:        "sleep",
		Description: "Busy-waits ms milliseconds of the guest's monotonic clock (fake unless Clock is granted).",
		Parameters:  aios.Schema(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`),
	}, func(c *aios.Call, in struct{ Ms int64 }) (map[string]any, error) {
		// ms times a millisecond past an int64 wrapped negative and
		// returned at once: wait "forever" then.
		d := time.Duration(math.MaxInt64)
		if in.Ms < math.MaxInt64/int64(time.Millisecond) {
			d = time.Duration(in.Ms) * time.Millisecond
		}
		start := time.Now()
		for time.Since(start) < d {
		}
		return map[string]any{"slept": in.Ms}, nil
	})
	aios.Handle(aios.Tool{Name: "crash", Parameters: aios.Schema(`{"type":"object"}`)},
		func(c *aios.Call, params any) (any, error) {
			var m map[string]int
			m["boom"] = 1 // nil map write: a real Go panic
			return nil, nil
		})
	aios.Handle(aios.Tool{
		Name:               "secret",
		Parameters:         aios.Schema(`{"type":"object"}`),
		CapabilityRequired: []string{"ReadSpace(secret)"},
	}, func(c *aios.Call, params any) (any, error) {
		return map[string]any{"ok": true}, nil
	})
	aios.HandleFunc(aios.Tool{
		Name:       "nested",
		Parameters: aios.Schema(`{"type":"object","properties":{"tool":{"type":"string"},"params":{"type":"object"}},"required":["tool","params"]}`),
	}, func(c *aios.Call, in map[string]any) (map[string]any, error) {
		tool, _ := in["tool"].(string)
		v, err := c.CallTool(tool, in["params"])
		if err != nil {
			return nil, err // a nested *aios.Error keeps its code
		}
		return map[string]any{"result": v}, nil
	})
}

func main() {}

// Package aios is the Go guest SDK for the AIOS guest ABI v1 (docs/abi.md):
// a tool author writes typed Go functions, registers them, and builds the
// program with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o tools.wasm .
//
// The SDK implements the guest exports (aios_alloc, aios_free,
// aios_register, aios_call, aios_abi_version) with //go:wasmexport, speaks
// MessagePack through package wire, and wraps the host imports (call_tool,
// space_read, space_write, ai_complete, log).
//
// A reactor module's only entry point is package initialization (the
// _initialize export); main is never run. Register tools from an init
// function of the guest program:
//
//	func init() {
//		aios.Register(aios.Provider{ID: "org.example.tools"})
//		aios.HandleFunc(aios.Tool{Name: "add", Parameters: aios.Schema(`{"type":"object"}`)},
//			func(c *aios.Call, in struct{ A, B int64 }) (map[string]int64, error) {
//				return map[string]int64{"sum": in.A + in.B}, nil
//			})
//	}
//	func main() {}
//
// Because the exports are package-level functions, the registry of tools is
// package-level state of the guest; that is the one place in this
// repository where it is allowed. The package must never import abi, the
// host or the runtimes: it builds for wasip1 with the standard library and
// package wire only. Off wasip1 it compiles (for unit tests) with host calls
// answering Unavailable.
package aios

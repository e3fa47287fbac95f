//go:build wasmtime

// Package wasmtime runs WebAssembly components on wasmtime (through the C
// component API of the libwasmtime.a that wasmtime-go/v39 bundles), as a
// second engine next to package component's pure-Go one. It is compiled only
// with the build tag "wasmtime" (it needs cgo).
//
// It owns: the cgo layer over wasmtime_component_* (engine, linker with WASI
// 0.2 from wasmtime, its monotonic clock capped at deadlines (clock.go), and
// the aios:sdk host interfaces, instantiate, call,
// post-return, serialize/deserialize for the compile cache), the conversion
// between wasmtime_component_val_t and the wit value model, deadline
// interruption by epoch, memory limits and a pool of instances per provider.
// Tool names, schemas and metadata come from component.PlanForEngine, so both
// engines describe a component identically.
//
// It imports abi, wit and component (for the plan) only. It must never import
// host, registry, config or cmd.
package wasmtime

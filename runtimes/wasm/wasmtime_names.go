package wasm

// Engine names for runtimes.wasm.engine and `aios-host run --engine`.
const (
	EngineWazero   = "wazero"   // pure Go, always compiled in (the default)
	EngineWasmtime = "wasmtime" // cgo, compiled in with the build tag "wasmtime"
)

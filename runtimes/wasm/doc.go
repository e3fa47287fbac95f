// Package wasm is the runtime for WebAssembly core modules that speak the
// AIOS guest ABI v1 (docs/abi.md), built on wazero.
//
// It owns: the Loader for .wasm files (runtime "wasm"), the sandbox each guest
// runs in (WASI preview 1 with nothing granted, a memory limit, guest output
// routed to the host log under a size and rate cap), the compile-once cache,
// a bounded pool of instances per provider, the watchdog that interrupts a
// guest at its call deadline, the "aios" host import module that forwards a
// guest's host calls to abi.Env, and Inspect, which reads a module's tools
// without a host.
//
// It depends on abi and guest/go/wire only. It must never import host,
// registry, config's consumers or any other runtime: the host reaches it
// through abi.Loader and abi.Provider.
package wasm

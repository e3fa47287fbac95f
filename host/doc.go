// Package host is the Tool Manager: it holds the registry of every loaded
// provider's tools and runs each call through one pipeline —
//
//	lookup → capability check → rate limit → params size and schema →
//	provider call under a deadline → result normalize/validate → audit
//
// — whatever runtime serves the tool. It owns the policy (agents' grants,
// trust-level caps on providers' grants, per-provider overrides), the rate
// limiters, the abi.Env that providers use for nested calls, Space storage
// and inference, and the loader table that maps file extensions to runtimes.
// See docs/pipeline.md.
//
// # Embedding
//
// A program builds a Host with New (Options: a config, loaders, a Space
// store, an audit writer; all optional), adds in-process providers with
// AddProvider and plugin files with LoadFile, and calls tools with Call
// (see Example; cmd/aios-host/hostsetup.go wires every runtime). A Host is
// safe for concurrent use. What owns what:
//
//   - the Host owns every provider it registered (AddProvider, LoadFile,
//     ReplaceProvider) and the audit writer, and closes them in Close;
//     a provider it refused, or one from LoadProvider, stays the caller's;
//   - the caller owns the loaders and the Space store, and front ends
//     built on the host (package server, mcpserver, discovery).
//
// Shut down in this order: the front ends (they cancel their calls in
// flight), then Host.Close (it closes the providers and waits for the
// calls in flight, so that each has its audit record), then the loaders
// (runtimes/wasm's Loader.Close interrupts any guest call still running,
// the wasmtime loaders' Close keeps their deadlines until they end).
//
// host imports abi, registry, schema, space, audit and config. It must never
// import a runtime package (runtimes are reached through abi.Provider and
// abi.Loader) nor cmd; only its tests use runtimes/native, as the simplest
// in-process provider.
package host

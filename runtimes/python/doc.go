// Package python runs Python tool providers on the machine's CPython 3 as
// sandboxed worker processes.
//
// It owns the .py loader (runtime "python"): loading a file starts a worker
// (`python3` from PATH, or runtimes.python.interpreter) that imports the
// file with the aios_sdk package (sdk/python, embedded in the binary via
// package pysdk) on its path and sends its ToolRegister; calls then flow as
// abi Envelopes (4-byte big-endian length + JSON) over the worker's pipes,
// with host_call/host_result for the ctx services (spaces, nested calls,
// inference, logs). Each provider has a pool of workers, each serving one
// call at a time. A worker that crashes fails its call with ProviderCrashed
// and is replaced with backoff; at a call's deadline the worker's whole
// process group is killed and replaced (Timeout).
//
// Each worker runs in a sandbox set up from the spawning thread (see
// sandbox_linux.go and docs/python.md): a clean environment, Landlock
// (read-only access to the interpreter, the SDK and the tool's folder), a
// seccomp filter (no socket() unless the provider holds Network(*), no
// raising of resource limits), a new network namespace, RLIMIT_AS/RLIMIT_CPU,
// and its own process group. Layers the machine lacks are detected at the
// first load and logged. A provider holding only Network(host pattern)
// capabilities stays without network and connects through the host, which
// checks the pattern (netbroker.go).
//
// Calls are read on the caller's goroutine with bounded, adaptive spinning
// on the worker's pipe (pipe.go; runtimes.python.spin).
//
// Package python imports abi, config (only to decode its section) and
// sdk/python. It must never import host, registry or another runtime.
package python

// Package native is the in-process Go runtime: an SDK to offer Go functions
// as aios-host tools. A Provider collects tool definitions and handlers and
// implements abi.Provider, so the host serves native tools through exactly
// the same pipeline as WASM, JavaScript or Python tools.
//
//	p := native.New(abi.ProviderInfo{ID: "org.example.tools"})
//	p.MustRegister(abi.ToolDef{Name: "greet", ...}, native.Typed(greet))
//
// # Deadlines
//
// A handler runs in the caller's goroutine: the host does not start a
// goroutine per call (that would cost more than the whole pipeline). The ctx
// a handler receives carries the call's deadline; a handler that blocks or
// loops must honour it (select on ctx.Done(), check ctx.Err()) and return
// promptly. A handler that returns after its deadline has its result thrown
// away and the caller gets Timeout. A handler that never returns blocks its
// caller: native code is as trusted as the host itself and cannot be
// preempted.
//
// # Lifetime
//
// ctx and env serve one call: once the handler returns, the host's Env
// refuses every service (Unavailable) and ctx reports done. Work that must
// outlive the call cannot use them.
//
// # Errors
//
// A *abi.ToolError returned by a handler passes through unchanged, and one
// wrapped in the error it returns (fmt.Errorf("fetching: %w", err)) keeps
// its code and data, the handler's words around its message; a context
// deadline becomes Timeout, a cancellation Cancelled, anything else
// ProviderError with the error's message. An error message that is not
// valid UTF-8 reaches the caller with each invalid byte as U+FFFD, as a
// WASM guest's does (abi.ValidText), the handler's own error unchanged.
// A panic is recovered and becomes
// ProviderCrashed with the panic value and a short stack in Data.
//
// native imports only abi; it must never import host, registry or another
// runtime.
package native

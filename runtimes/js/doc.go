// Package js runs JavaScript and TypeScript tool providers on goja.
//
// It owns the .js and .ts loaders (runtime names "js" and "ts"): a file is
// bundled at load with esbuild's Go API (TypeScript transpiled, decorators
// lowered, the module 'aios-sdk' resolved to the SDK shim, an inline source
// map kept so errors and stacks name the original file:line:col), compiled
// once into a goja.Program, and run in a pool of goja runtimes. Each runtime
// is used by one call at a time; while a call awaits host services (spaces,
// nested tool calls, inference, timers) the calling goroutine runs that
// runtime's event loop, and host calls complete on other goroutines and are
// queued back to it. A shared watchdog interrupts calls past their deadline
// or past their provider's memory budget; an interrupted runtime is
// discarded. See docs/js.md.
//
// Package js depends on abi only. It must never import host, registry,
// config or another runtime.
package js

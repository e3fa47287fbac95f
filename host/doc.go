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
// host imports abi, registry, schema, space, audit and config. It must never
// import a runtime package (runtimes are reached through abi.Provider and
// abi.Loader) nor cmd; only its tests use runtimes/native, as the simplest
// in-process provider.
package host

// Package registry holds the providers and tools known to a host: it checks
// registrations (names, SemVer versions, permission levels, latency classes,
// capabilities, schemas), keeps several versions of a tool side by side,
// resolves a name and an optional version constraint to one tool version,
// searches tools by text with filters, and tells subscribers what changed.
// It records when each definition was registered (Entry.RegisteredAt),
// diffs the schemas of two versions (Diff), and checks at registration that
// a version breaking callers of the one below it raised its major version
// (SetSemverCheck).
//
// Reads (Resolve, Search, Tools, Providers) use an immutable snapshot behind
// an atomic pointer and take no lock; writers (Register, Replace,
// Unregister) are serialized by a mutex and publish a new snapshot built
// copy-on-write. See docs/registry.md for the rules.
//
// registry imports abi and schema only; it must never import host, runtimes,
// server or cmd.
package registry

// Package cabi is the Component Model Canonical ABI in Go: the size,
// alignment and flattening of every WIT value type, lifting values out of a
// guest's linear memory and core values, and lowering values into them,
// following design/mvp/CanonicalABI.md of the component-model repository.
//
// It is engine-agnostic: guest memory is reached through the small Memory
// interface (wazero's api.Memory satisfies it as is) and allocation through a
// Realloc callback, so a second engine can reuse it. Core values travel as
// uint64 in wazero's encoding (i32 zero-extended, floats as their bits).
//
// Everything that comes from a guest is hostile: out-of-range pointers and
// lengths, unaligned pointers, invalid UTF-8 or UTF-16, bad discriminants and
// chars are reported as *Error, never as a panic.
//
// cabi imports only wit (the type and value model). It must never import
// abi's providers, host, registry, runtimes or cmd.
package cabi

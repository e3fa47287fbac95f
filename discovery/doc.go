// Package discovery owns how aios-host finds tool providers: Adapter Cards
// (seed 001 §2), tool.aios.yaml descriptions (§6.1), freedesktop .desktop
// entries matched against a small library of known adapters (§3.1 step 4),
// the priority between them (card > yaml > desktop, §6.2), the plugin-folder
// watcher with debounced, atomic hot reload, and remote adapters fetched
// from /.well-known/aios-adapter.json (§3.2).
//
// discovery sits above host: it may import abi, trust, schema, registry,
// config, host and the leaf wire package server/jsonrpc (for remote
// adapters); it must never import server itself or cmd.
package discovery

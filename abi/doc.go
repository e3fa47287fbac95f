// Package abi holds the messages every aios-host runtime speaks: ToolRegister,
// ToolDef, ToolCall, ToolResult and ToolError; the two codecs that carry them
// (MessagePack by default, JSON for debugging and the MCP bridge); the
// length-prefixed framing used on stream transports; capabilities and trust
// levels; and the Provider, Env and Loader interfaces that connect a runtime to
// the host.
//
// abi sits at the bottom of the dependency graph. It must never import
// registry, host, runtimes or cmd: runtimes implement Provider and Loader from
// this package and so never need to import host.
package abi

// FormatVersion is the version of the wire format described by this package.
// It is carried in ToolRegister.Format and Envelope.V so the format can evolve:
// a receiver refuses a message whose version it does not know.
const FormatVersion = 1

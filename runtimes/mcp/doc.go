// Package mcp is the inbound MCP bridge: it connects to external MCP servers
// (a stdio command, or a streamable-HTTP URL with an optional bearer token),
// lists their tools and resources, and offers each server as one
// abi.Provider whose tools are named mcp-{server}-{tool} (resources become
// read-only tools mcp-{server}-read-{resource}). A server's tools keep their
// inputSchema, are registered at trust level Untrusted, and require
// Network(host) of the endpoint for HTTP servers plus whatever the server's
// `capability_required` config adds per tool (MCP tools carry no
// capabilities). A list-changed notification re-lists the server. A stdio
// server that dies during a call fails that call with ProviderCrashed and
// is restarted at once; calls made meanwhile wait for the restart (at most
// 5 s). A server that stays down or is unreachable answers Unavailable at
// once while the bridge reconnects with backoff.
//
// A connection starts with initialize (protocol version ProtocolVersion,
// or an older one the server picks). A stdio server runs in a process
// group of its own: when its session ends, what is left of the group is
// killed; closing its provider (or the Bridge) closes its stdin, then
// sends SIGTERM and SIGKILL a second apart, or kills it at once if it has
// not finished initialize, and waits for it (at most 5 s).
//
// Every message a server sends is checked at byte level before the go-sdk
// decodes it (budget.go): one longer than max_message_bytes is refused
// while it is read, one that wire.CheckCost estimates past decode_budget
// before it is decoded; the calls in flight then answer TooLarge and the
// server is restarted (stdio) or reconnected (HTTP).
//
// The bridge never registers anything itself: the caller (cmd) gives it a
// Publish function that puts a provider into the host (host.ReplaceProvider
// with trust Untrusted). Its configuration is the `mcp.servers` section.
//
// mcp imports abi, config and schema, and the MCP go-sdk; like every
// runtime it must never import host, registry, server or cmd.
package mcp

// Package mcpserver is the outbound MCP face of aios-host: it serves the
// host's exportable tools to MCP clients (desktop assistants, IDEs, the MCP
// Inspector) over stdio (`aios-host mcp`) and over streamable HTTP at /mcp
// (`aios-host run --http`). A tool is listed when its definition says
// mcp_exportable or its name matches a pattern of `mcp.export`; it carries
// its description, inputSchema, outputSchema (when its return schema is an
// object schema, with structuredContent in results) and annotations derived
// from its hints. Every call runs through the host's whole pipeline as the
// agent the client maps to: stdio clients are the local agent `mcp.agent`
// (default "mcp", CallTool(*) only and permission ceiling high — critical
// tools are refused — unless the configuration says otherwise); HTTP clients present OAuth 2.1 bearer JWTs, verified against
// the configured issuer's JWKS (signature, issuer, audience, expiry), whose
// scopes select the agent. The tool list follows the registry: every change
// sends notifications/tools/list_changed.
//
// Both transports wrap the go-sdk's to answer as MCP 2025-06-18 asks where
// it does not (docs/mcp.md): a malformed line or a batch the session may
// not send is answered with a JSON-RPC error instead of ending the stdio
// session; a request the client cancelled gets no response; errors the
// go-sdk sends with code 0 get a standard code. Over HTTP a request whose
// Origin is not this server's (nor in mcp.http.allowed_origins) is refused
// with 403, a POST without Mcp-Session-Id that is not initialize with 400,
// as is a request whose Mcp-Protocol-Version is not its session's (one
// without the header is served as of its session's version), and an
// unknown method gets a JSON-RPC -32601 error, as do the methods of
// capabilities the server does not declare (prompts). An allowed browser
// origin gets CORS headers. A user holds at most mcp.http.max_sessions
// sessions (one more closes their least recently used); a session that ends
// (DELETE, or closed so) has its calls cancelled; a write of an answer or
// of a notification that makes no progress for DefaultWriteTimeout fails.
//
// mcpserver imports host, registry, config and abi, the MCP go-sdk and
// go-jose; only cmd imports it. It must never be imported by host, a
// runtime or server (server reaches it through an http.Handler).
package mcpserver

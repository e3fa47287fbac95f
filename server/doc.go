// Package server owns aios-host's network face: JSON-RPC 2.0 over a unix
// socket (newline-delimited) and over HTTP (POST /rpc), tools_changed
// notifications (on the socket connection, or as Server-Sent Events at
// GET /events), caller authentication (unix peer credentials, bearer
// tokens), the host's own signed Adapter Card at
// /.well-known/aios-adapter.json, /.well-known/jwks.json, /health and
// Prometheus /metrics.
//
// server sits above host and discovery and must never be imported by them
// (they use only the leaf package server/jsonrpc); only cmd imports it.
package server

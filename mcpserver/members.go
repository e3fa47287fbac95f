package mcpserver

// The members of a JSON-RPC message, and of tools/call's params, that the
// go-sdk reads. It reads a member given twice as the last ({"name":
// "echo", "name": "add"} ran add), and one in another case ("ID",
// "METHOD") as none: a request with "ID" was a notification and a
// "METHOD" with an id a response, neither answered, and the client waited
// for ever. Either way what the client meant is in doubt (a gateway in
// front that reads the first member saw another tool than the one run),
// so such a message is refused, as the host's JSON-RPC socket refuses it
// (server/rpc.go).
var (
	envelopeMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	callMembers     = []string{"name", "arguments", "_meta", "task"}
)

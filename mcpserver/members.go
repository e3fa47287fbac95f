package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
)

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

// memberProblem says what is wrong with the top-level member names of the
// JSON object p ("" when nothing is, or p is no object): one of names
// given twice, or a name that equals one of them but in another case.
// Nested values are not looked into, and nothing is copied but the names.
func memberProblem(p []byte, names []string) string {
	var seen uint64 // names[k] seen: bit k
	depth := 0
	expectKey := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '{', '[':
			depth++
			expectKey = depth == 1 && c == '{'
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			j := i + 1
			for j < len(p) && p[j] != '"' {
				if p[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(p) {
				return "" // not JSON: refused elsewhere
			}
			if expectKey {
				if msg := checkMember(p[i:j+1], names, &seen); msg != "" {
					return msg
				}
				expectKey = false
			}
			i = j
		}
	}
	return ""
}

// checkMember is memberProblem's look at one member name, quoted as in
// the JSON text.
func checkMember(quoted []byte, names []string, seen *uint64) string {
	raw := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		var key string
		if json.Unmarshal(quoted, &key) == nil {
			raw = []byte(key)
		}
	}
	for k, n := range names {
		if string(raw) == n {
			if *seen&(1<<k) != 0 {
				return fmt.Sprintf("member %q is given twice", n)
			}
			*seen |= 1 << k
			return ""
		}
	}
	for _, n := range names {
		if bytes.EqualFold([]byte(n), raw) {
			return fmt.Sprintf("unknown member %q (member names are case-sensitive: did you mean %q?)", raw, n)
		}
	}
	return ""
}

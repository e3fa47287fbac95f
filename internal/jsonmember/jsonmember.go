// Package jsonmember finds what encoding/json and the go-sdk let pass in
// the member names of a JSON object: a member given twice (read as the
// last) and one in another case (read as the member, or as none). The
// JSON-RPC socket (server) and the MCP server (mcpserver) refuse both.
package jsonmember

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Problem says what is wrong with the top-level member names of the
// JSON object p that encoding/json lets pass: a name that is none of
// names but equals one ignoring case ("ADAPTER_ID"), which it takes for
// that member, and a name given twice; either way {"name": "a", "NAME":
// "b"} was read as whichever came last. "" when there is none (or p is
// no object). unknown is the word for a member in the message ("field",
// "member"). Nested values (a tool's arguments) are not looked into, and
// nothing is copied but the names.
func Problem(p []byte, names []string, unknown string) string {
	var seen uint64 // names[k] seen: bit k (a request or params struct has fewer than 64 members)
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
				if msg := checkMember(p[i:j+1], names, &seen, unknown); msg != "" {
					return msg
				}
				expectKey = false
			}
			i = j
		}
	}
	return ""
}

// checkMember is Problem's look at one member name, quoted as in
// the JSON text; it allocates nothing for a name without escapes.
func checkMember(quoted []byte, names []string, seen *uint64, unknown string) string {
	raw := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		var key string
		if json.Unmarshal(quoted, &key) == nil {
			raw = []byte(key)
		}
	}
	for k, n := range names {
		if string(raw) == n {
			if k < 64 && *seen&(1<<k) != 0 {
				return fmt.Sprintf("member %q is given twice", n)
			}
			if k < 64 {
				*seen |= 1 << k
			}
			return ""
		}
	}
	for _, n := range names {
		if bytes.EqualFold([]byte(n), raw) {
			return fmt.Sprintf("unknown %s %q (member names are case-sensitive: did you mean %q?)", unknown, raw, n)
		}
	}
	return ""
}

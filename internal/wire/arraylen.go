package wire

import "bytes"

// ArrayLen counts the members of a JSON array (valid JSON: the caller
// checked it) without decoding it: a JSON-RPC batch is refused by its
// length before its members cost anything. 0 for an empty array.
func ArrayLen(body []byte) int {
	b := bytes.TrimSpace(body)
	if len(b) < 2 || len(bytes.TrimSpace(b[1:len(b)-1])) == 0 {
		return 0
	}
	n, depth, inString := 1, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++ // the escaped byte
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 1:
			n++
		}
	}
	return n
}

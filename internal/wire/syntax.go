package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aios-host/aios-host/abi"
)

// maxParserDepth is encoding/json's nesting limit (its scanner's
// maxNestingDepth, not exported).
const maxParserDepth = 10000

// JSONSyntax says why b is not JSON text, as encoding/json found it, and
// where: "invalid character '}' looking for beginning of object key string
// (at byte 48)", with offset 48 (from 1, as encoding/json counts; 0 when
// there is no byte to point at). msg is "" when b is JSON. The host's /rpc
// and the MCP server's parse errors (-32700) say it, so that a client
// writing JSON by hand need not hunt for a missing brace.
func JSONSyntax(b []byte) (msg string, offset int64) {
	err := json.Unmarshal(b, new(json.RawMessage))
	var se *json.SyntaxError
	switch {
	case err == nil:
		return "", 0
	case errors.As(err, &se):
		if se.Offset > 0 && se.Offset <= int64(len(b)) {
			offset = se.Offset
		}
		if strings.HasSuffix(se.Error(), "exceeded max depth") {
			// encoding/json's own limit, which named no depth.
			return fmt.Sprintf("arrays and objects nested deeper than %d levels (at byte %d), the most the host's JSON parser reads; a value (params, arguments, a result) may nest at most %d levels: send it flatter", maxParserDepth, se.Offset, abi.MaxDepth), offset
		}
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset), offset
	}
	return strings.TrimPrefix(err.Error(), "json: "), 0
}

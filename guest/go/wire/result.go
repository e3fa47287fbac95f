package wire

import "fmt"

// Error is the wire form of abi.ToolError: {"code","message","data"?}.
type Error struct {
	Code    string
	Message string
	Data    any
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// AppendResult appends the ToolResult {"value": v}.
func AppendResult(b []byte, v any) ([]byte, error) {
	b = AppendString(AppendMapHeader(b, 1), "value")
	return AppendValue(b, v)
}

// AppendError appends the ToolResult {"error": {"code", "message", "data"?}}.
// A data value that cannot be encoded is dropped.
func AppendError(b []byte, code, message string, data any) []byte {
	b = AppendString(AppendMapHeader(b, 1), "error")
	n := 2
	if data != nil {
		n = 3
	}
	b = AppendString(AppendString(AppendMapHeader(b, n), "code"), code)
	b = AppendString(AppendString(b, "message"), message)
	if data != nil {
		mark := len(b)
		b = AppendString(b, "data")
		var err error
		if b, err = AppendValue(b, data); err != nil {
			b = AppendNil(b[:mark+len("data")+1])
		}
	}
	return b
}

// ParseResult splits a decoded ToolResult map into its value or its error.
// A result that is not a map, or whose "error" is malformed, is reported as
// an error naming what is wrong.
func ParseResult(v any) (value any, terr *Error, err error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("result is a %s, want a map with \"value\" or \"error\"", TypeName(v))
	}
	if e, ok := m["error"]; ok && e != nil {
		em, ok := e.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("result \"error\" is a %s, want a map with code and message", TypeName(e))
		}
		code, _ := em["code"].(string)
		msg, ok := em["message"].(string)
		if code == "" {
			return nil, nil, fmt.Errorf("result \"error\" has no string \"code\"")
		}
		if m := em["message"]; !ok && m != nil {
			// As in JSON, where a message that is not a string does
			// not decode.
			return nil, nil, fmt.Errorf("result \"error\" has a \"message\" that is a %s, want a string", TypeName(m))
		}
		return nil, &Error{Code: code, Message: msg, Data: em["data"]}, nil
	}
	return m["value"], nil, nil
}

// TypeName names the JSON type of a canonical value, for error messages.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64, uint64, float64, int:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case []byte:
		return "byte string"
	}
	return fmt.Sprintf("%T", v)
}

// DecodeResultValue is the fast path of decoding a MessagePack ToolResult
// {"value": v}: it walks the envelope without building it and decodes only
// v. ok is false for anything else (an "error", a malformed or trailing
// message, a value that does not decode); the caller then decodes the whole
// message (DecodeValue, ParseResult) to report what is wrong.
func DecodeResultValue(data []byte) (v any, ok bool) {
	var it MapIter
	if it.Reset(data) != nil {
		return nil, false
	}
	var val []byte
	for it.Next() {
		switch string(it.key) {
		case "value":
			val = it.value
		case "error":
			if len(it.value) != 1 || it.value[0] != 0xc0 { // not nil
				return nil, false
			}
		}
	}
	if it.err != nil || it.r.off != len(data) {
		return nil, false
	}
	if val == nil {
		return nil, true
	}
	v, err := DecodeValue(val)
	return v, err == nil
}

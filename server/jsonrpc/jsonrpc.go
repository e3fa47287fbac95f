// Package jsonrpc holds the JSON-RPC 2.0 wire types aios-host speaks, the
// mapping between abi error codes and JSON-RPC error codes, and a client for
// both transports (HTTP POST /rpc and newline-delimited JSON over a unix
// socket). It is a leaf: it imports only abi and internal/wire (the
// decode budget of a server's answers), so discovery (remote adapters) and
// cmd (client mode) can use it without importing server.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/wire"
)

// Version is the "jsonrpc" member of every message.
const Version = "2.0"

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Server error codes (the -32000…-32099 range JSON-RPC reserves for
// implementations), one per abi.ErrorCode. InvalidParams, InvalidRequest
// and Internal use the standard codes. Every error a tool call produces
// carries data.code, the abi code name, so a client needs no table.
var codeOf = map[abi.ErrorCode]int{
	abi.InvalidParams:    CodeInvalidParams,
	abi.InvalidRequest:   CodeInvalidRequest,
	abi.Internal:         CodeInternalError,
	abi.NotFound:         -32001,
	abi.CapabilityDenied: -32002,
	abi.RateLimited:      -32003,
	abi.Timeout:          -32004,
	abi.ProviderError:    -32005,
	abi.ProviderCrashed:  -32006,
	abi.Unavailable:      -32007,
	abi.InvalidResult:    -32008,
	abi.Conflict:         -32009,
	abi.Cancelled:        -32010,
	abi.DepthExceeded:    -32011,
	abi.TooLarge:         -32012,
}

// CodeUnknown is used for an abi code this table does not know.
const CodeUnknown = -32000

// CodeFor returns the JSON-RPC error code for an abi error code.
func CodeFor(c abi.ErrorCode) int {
	if n, ok := codeOf[c]; ok {
		return n
	}
	return CodeUnknown
}

// Request is a call (ID set) or a notification (ID absent).
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// IsNotification reports whether the request has no id.
func (r *Request) IsNotification() bool { return len(r.ID) == 0 }

// Response answers a call.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Notification is a server-to-client message without id.
type Notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Data    *ErrorData `json:"data,omitempty"`
}

// ErrorData is the data member of every error aios-host sends: Code is an
// abi.ErrorCode name; Details is the ToolError's data, if any.
type ErrorData struct {
	Code    abi.ErrorCode `json:"code"`
	Details any           `json:"details,omitempty"`
}

// UnmarshalJSON reads Details in canonical form (abi.UnmarshalJSONValue:
// int64, uint64 above it, float64), as a result is read: decoded into any
// by encoding/json, a tool's error data {"n": 9007199254740993} reached a
// client as 9007199254740992.
func (d *ErrorData) UnmarshalJSON(b []byte) error {
	var raw struct {
		Code    abi.ErrorCode   `json:"code"`
		Details json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	d.Code, d.Details = raw.Code, nil
	if len(raw.Details) == 0 {
		return nil
	}
	return abi.UnmarshalJSONValue(raw.Details, &d.Details)
}

func (e *Error) Error() string {
	if e.Data != nil {
		return fmt.Sprintf("%s: %s (JSON-RPC %d)", e.Data.Code, e.Message, e.Code)
	}
	return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
}

// Errorf builds an error object with an abi code.
func Errorf(c abi.ErrorCode, format string, args ...any) *Error {
	return &Error{Code: CodeFor(c), Message: fmt.Sprintf(format, args...), Data: &ErrorData{Code: c}}
}

// Limited is the RateLimited error of a front end's own bound (a
// connection, request or session limit, not the pipeline's buckets): its
// data details name the config key (limit, when the bound has one) as the
// pipeline's refusals do, with retry_after_ms when a wait is known (> 0).
func Limited(key string, retryAfter time.Duration, format string, args ...any) *Error {
	e := Errorf(abi.RateLimited, format, args...)
	d := map[string]any{}
	if key != "" {
		d["limit"] = key
	}
	if retryAfter > 0 {
		d["retry_after_ms"] = retryAfter.Milliseconds()
	}
	e.Data.Details = d
	return e
}

// Protocol builds an error for a JSON-RPC level problem (parse error,
// invalid request, unknown method).
func Protocol(code int, format string, args ...any) *Error {
	var c abi.ErrorCode
	switch code {
	case CodeParseError, CodeInvalidRequest:
		c = abi.InvalidRequest
	case CodeMethodNotFound:
		c = abi.NotFound
	case CodeInvalidParams:
		c = abi.InvalidParams
	default:
		c = abi.Internal
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Data: &ErrorData{Code: c}}
}

// FromError maps any error (a *abi.ToolError in the pipeline's case) to an
// error object.
func FromError(err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	te := abi.AsToolError(err, abi.Internal)
	// Whole floats from 2^53 up go in exponent form, as the server writes
	// a result (abi.ForJSON): an integer literal reads back as another number.
	return &Error{Code: CodeFor(te.Code), Message: te.Message, Data: &ErrorData{Code: te.Code, Details: abi.ForJSON(te.Data)}}
}

// ToolError converts the error object back into a ToolError, by data.code
// when present, else by the numeric code.
func (e *Error) ToolError() *abi.ToolError {
	if e.Data != nil && e.Data.Code != "" {
		return &abi.ToolError{Code: e.Data.Code, Message: e.Message, Data: e.Data.Details}
	}
	for c, n := range codeOf {
		if n == e.Code {
			return &abi.ToolError{Code: c, Message: e.Message}
		}
	}
	if e.Code == CodeMethodNotFound {
		return &abi.ToolError{Code: abi.NotFound, Message: e.Message}
	}
	return &abi.ToolError{Code: abi.Internal, Message: e.Message}
}

// IsBatch reports whether a message body is a batch (a JSON array).
func IsBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// BatchLen counts the members of a batch (a valid JSON array) without
// decoding it (wire.ArrayLen): a batch is refused by its length before its
// members cost anything.
func BatchLen(body []byte) int { return wire.ArrayLen(body) }

// ToolsCallParams are the params of tools/call.
type ToolsCallParams struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments,omitempty"`
	// Version is an optional SemVer constraint (aios-host extension).
	Version string `json:"version,omitempty"`
	// TimeoutMS bounds the call (aios-host extension; the host's default
	// deadline applies when 0).
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// ParentID links a call made on behalf of another (remote adapters).
	ParentID string `json:"parent_id,omitempty"`
	// Depth is how deep the call is nested at the host that forwards it
	// (aios-host extension; remote adapters send their call's depth + 1):
	// two hosts serving a tool through each other stop at
	// limits.max_call_depth instead of calling each other until the
	// deadline.
	Depth int `json:"depth,omitempty"`
}

// ToolsCallResult is the result of tools/call: the tool's value, plus an
// MCP-style text rendering of it. Deprecation is set when the version that
// served the call is deprecated (an empty note when it is marked so without
// one): the call succeeded, and the caller should move on.
type ToolsCallResult struct {
	Value       any              `json:"value"`
	Content     []TextContent    `json:"content,omitempty"`
	Tool        string           `json:"tool,omitempty"`
	Version     string           `json:"version,omitempty"`
	CallID      string           `json:"call_id,omitempty"`
	Deprecation *abi.Deprecation `json:"deprecation,omitempty"`
}

// TextContent is an MCP text content block.
type TextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

package abi

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// ErrorCode is a normalized ToolError code. The set is closed for callers
// (they may switch on it) and open for the future (unknown codes are treated
// as Internal by old hosts).
type ErrorCode string

// The normalized codes.
const (
	InvalidParams    ErrorCode = "InvalidParams"    // params violate the schema or are malformed
	NotFound         ErrorCode = "NotFound"         // no such tool, version or object
	CapabilityDenied ErrorCode = "CapabilityDenied" // caller or provider lacks a capability
	RateLimited      ErrorCode = "RateLimited"      // a rate limit refused the call; Data has retry_after_ms when known
	Timeout          ErrorCode = "Timeout"          // the deadline passed
	ProviderError    ErrorCode = "ProviderError"    // the tool reported a failure
	ProviderCrashed  ErrorCode = "ProviderCrashed"  // panic, trap, worker death
	Unavailable      ErrorCode = "Unavailable"      // provider or backend cannot serve now
	Internal         ErrorCode = "Internal"         // a host bug or an unexpected condition
	InvalidResult    ErrorCode = "InvalidResult"    // the result violates the tool's return schema
	Conflict         ErrorCode = "Conflict"         // registration conflicts with an existing one
	InvalidRequest   ErrorCode = "InvalidRequest"   // malformed message or registration
	Cancelled        ErrorCode = "Cancelled"        // the caller cancelled
	DepthExceeded    ErrorCode = "DepthExceeded"    // nested calls went past the depth limit
	TooLarge         ErrorCode = "TooLarge"         // params or result past the size limit
)

// KnownCodes lists every code above, in a stable order.
var KnownCodes = []ErrorCode{InvalidParams, NotFound, CapabilityDenied, RateLimited, Timeout,
	ProviderError, ProviderCrashed, Unavailable, Internal, InvalidResult, Conflict,
	InvalidRequest, Cancelled, DepthExceeded, TooLarge}

// Known reports whether c is one of KnownCodes.
func (c ErrorCode) Known() bool { return slices.Contains(KnownCodes, c) }

// ToolError is the one error type that crosses the ABI.
type ToolError struct {
	Code    ErrorCode `json:"code" msgpack:"code"`
	Message string    `json:"message" msgpack:"message"`
	Data    any       `json:"data,omitempty" msgpack:"data"`
}

func (e *ToolError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return string(e.Code) + ": " + e.Message
}

// Is makes errors.Is(err, &ToolError{Code: X}) match by code (and by
// message when the target has one). A nil *ToolError matches nothing.
func (e *ToolError) Is(target error) bool {
	t, ok := target.(*ToolError)
	return ok && e != nil && t != nil && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// Errorf builds a ToolError with a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *ToolError {
	return &ToolError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NilCall is the error of a provider's Call given a nil *ToolCall (an
// embedder calling a provider directly; the host never does): every
// runtime's Call answers it instead of a nil pointer dereference.
func NilCall(p any) *ToolError {
	return Errorf(InvalidRequest, "%T.Call: the call is nil; a *abi.ToolCall naming the tool is required", p)
}

// AsToolError converts any error into a ToolError. A *ToolError anywhere in
// the chain is returned as is; context deadline and cancellation become
// Timeout and Cancelled; anything else, a nil *ToolError held in err
// included, becomes fallback with err's message.
func AsToolError(err error, fallback ErrorCode) *ToolError {
	if err == nil {
		return nil
	}
	var te *ToolError
	if errors.As(err, &te) {
		if te == nil {
			return &ToolError{Code: fallback, Message: err.Error() + " (a nil *abi.ToolError held in an error)"}
		}
		return te
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &ToolError{Code: Timeout, Message: err.Error()}
	case errors.Is(err, context.Canceled):
		return &ToolError{Code: Cancelled, Message: err.Error()}
	}
	return &ToolError{Code: fallback, Message: err.Error()}
}

// CodeOf returns the code of err as a ToolError, or "" for nil.
func CodeOf(err error) ErrorCode {
	if err == nil {
		return ""
	}
	return AsToolError(err, Internal).Code
}

package aios

import (
	"errors"
	"fmt"

	"github.com/aios-host/aios-host/guest/go/wire"
)

// Object is a Space object.
type Object struct {
	Space string
	ID    string
	Data  []byte
}

// CompleteRequest asks the host's inference backend (needs Inference).
type CompleteRequest struct {
	Prompt      string
	System      string
	MaxTokens   int
	Temperature *float64
	Model       string
	// Stop is where the backend ends its answer (chat-completions'
	// "stop"): none when empty.
	Stop []string
}

// Log levels for Log.
const (
	LevelDebug = 0
	LevelInfo  = 1
	LevelWarn  = 2
	LevelError = 3
)

// Log writes a message to the host log, tagged with provider and call.
func Log(level int, msg string) { hostLog(level, msg) }

// Logf is Log with formatting at LevelInfo.
func Logf(format string, args ...any) { hostLog(LevelInfo, fmt.Sprintf(format, args...)) }

// CallTool calls another tool through the host pipeline (needs
// CallTool(<tool>) in the grants). A refusal or the tool's own failure is an
// *Error with the host's code.
func (c *Call) CallTool(tool string, params any) (any, error) {
	return c.CallToolVersion(tool, "", params)
}

// CallToolVersion is CallTool with a SemVer constraint.
func (c *Call) CallToolVersion(tool, version string, params any) (any, error) {
	b, err := callToolRequest(tool, version, params)
	if err != nil {
		return nil, err
	}
	return answer(opCallTool, b)
}

// callToolRequest encodes a call_tool request. params may be any value
// encoding/json takes (a struct, typed maps and slices), converted by its
// rules as HandleFunc converts results ([]byte becomes base64: bytes are
// not a JSON value); the generic values of a map[string]any or []any are
// kept as they are (jsonValue: a float from 2^53 up stays that float).
func callToolRequest(tool, version string, params any) ([]byte, error) {
	req := map[string]any{"tool": tool, "params": params}
	if version != "" {
		req["version"] = version
	}
	b, werr := wire.AppendJSONValue(nil, req)
	if werr == nil {
		return b, nil
	}
	g, err := jsonValue(params, 0)
	if err != nil {
		if errors.As(werr, new(*wire.PathError)) && !errors.Is(werr, wire.ErrUnsupported) {
			err = werr // a generic value's NaN, named by its path (encoding/json names none)
		}
		return nil, Errorf(InvalidParams, "call_tool %s: the params are not a JSON value: %v", tool, err)
	}
	req["params"] = g
	if b, err = wire.AppendJSONValue(nil, req); err != nil {
		return nil, Errorf(InvalidParams, "call_tool %s: %v", tool, err)
	}
	return b, nil
}

// SpaceRead reads object id; space "" searches every readable space.
func (c *Call) SpaceRead(space, id string) (Object, error) {
	req := map[string]any{"id": id}
	if space != "" {
		req["space"] = space
	}
	v, err := request(opSpaceRead, req)
	if err != nil {
		return Object{}, err
	}
	m, _ := v.(map[string]any)
	o := Object{}
	o.Space, _ = m["space"].(string)
	o.ID, _ = m["id"].(string)
	o.Data, _ = m["data"].([]byte)
	return o, nil
}

// SpaceWrite stores data in space and returns the object (without Data).
func (c *Call) SpaceWrite(space string, data []byte) (Object, error) {
	v, err := request(opSpaceWrite, map[string]any{"space": space, "data": data})
	if err != nil {
		return Object{}, err
	}
	m, _ := v.(map[string]any)
	o := Object{}
	o.Space, _ = m["space"].(string)
	o.ID, _ = m["id"].(string)
	return o, nil
}

// Complete runs an inference request and returns the text.
func (c *Call) Complete(r CompleteRequest) (string, error) {
	out, err := c.Completion(r)
	return out.Text, err
}

// Completion is an inference answer: the text, the model that wrote it,
// and why the backend stopped (FinishReason "length": the text was cut at
// MaxTokens; "stop": whole; "" when the backend said nothing).
type Completion struct {
	Text, Model, FinishReason string
}

// Completion is Complete answering the text with its model and finish
// reason: with Complete alone a tool could not tell an answer cut at
// MaxTokens from a whole one.
func (c *Call) Completion(r CompleteRequest) (Completion, error) {
	req := map[string]any{"prompt": r.Prompt}
	setStr(req, "system", r.System)
	setStr(req, "model", r.Model)
	// 0 is the backend's default. Another value out of range is refused,
	// as JS, Python and native providers are refused it (InvalidParams
	// naming it): a negative one was left out, the default used without
	// a word, and one past 2^31-1 was the host's InvalidRequest.
	if r.MaxTokens < 0 || r.MaxTokens > maxTokensLimit {
		return Completion{}, Errorf(InvalidParams, "ai_complete: MaxTokens must be from 0 to %d (0: the backend's default), got %d", maxTokensLimit, r.MaxTokens)
	}
	if r.MaxTokens > 0 {
		req["max_tokens"] = int64(r.MaxTokens)
	}
	if r.Temperature != nil {
		req["temperature"] = *r.Temperature
	}
	if len(r.Stop) > 0 {
		stop := make([]any, len(r.Stop))
		for i, s := range r.Stop {
			stop[i] = s
		}
		req["stop"] = stop
	}
	v, err := request(opComplete, req)
	if err != nil {
		return Completion{}, err
	}
	m, _ := v.(map[string]any)
	var out Completion
	out.Text, _ = m["text"].(string)
	out.Model, _ = m["model"].(string)
	out.FinishReason, _ = m["finish_reason"].(string)
	return out, nil
}

// maxTokensLimit is the largest CompleteRequest.MaxTokens (docs/abi.md
// section 4: max_tokens is an integer from 0 to 2^31-1).
const maxTokensLimit = 1<<31 - 1

const (
	opCallTool   = 0
	opSpaceRead  = 1
	opSpaceWrite = 2
	opComplete   = 3
)

// request encodes req, performs the host call and decodes the ToolResult.
func request(op int, req map[string]any) (any, error) {
	b, err := wire.AppendValue(nil, req)
	if err != nil {
		return nil, Errorf(InvalidParams, "host call arguments are not JSON values: %v", err)
	}
	return answer(op, b)
}

// answer performs host call op with the encoded request b and decodes the
// ToolResult.
func answer(op int, b []byte) (any, error) {
	resp, err := hostRequest(op, b)
	if err != nil {
		return nil, err
	}
	v, err := wire.Decoder{AllowBin: op == opSpaceRead}.Decode(resp)
	if err != nil {
		return nil, Errorf(Internal, "undecodable host answer: %v", err)
	}
	val, e, err := wire.ParseResult(v)
	if err != nil {
		return nil, Errorf(Internal, "malformed host answer: %v", err)
	}
	if e != nil {
		return nil, &Error{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	return val, nil
}

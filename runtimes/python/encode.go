package python

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/jsonenc"
)

// The call envelope is the hot path host → worker. It is encoded by hand
// instead of with encoding/json's reflection: a few appends for the fixed
// fields and a direct encoder for the canonical params (see abi.Normalize),
// with encoding/json only as the fallback for non-canonical values.
// Floats always carry a '.' or an exponent, so 3.0 stays a float in Python.

// appendCallFrame appends one frame (length prefix + JSON Envelope of kind
// "call") to b. spinUS > 0 adds the envelope key "spin": how many
// microseconds the worker polls for the next call after answering this one
// (a private extension of this runtime's protocol; see pipe.go).
func appendCallFrame(b []byte, id string, call *abi.ToolCall, spinUS int64) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	b = append(b, `{"v":1,"kind":"call","id":`...)
	b = jsonenc.AppendString(b, id)
	if spinUS > 0 {
		b = append(b, `,"spin":`...)
		b = strconv.AppendInt(b, spinUS, 10)
	}
	b = append(b, `,"call":{"id":`...)
	b = jsonenc.AppendString(b, id)
	b = append(b, `,"tool":`...)
	b = jsonenc.AppendString(b, call.Tool)
	if call.Caller != "" {
		b = append(b, `,"caller":`...)
		b = jsonenc.AppendString(b, call.Caller)
	}
	if call.ParentID != "" {
		b = append(b, `,"parent_id":`...)
		b = jsonenc.AppendString(b, call.ParentID)
	}
	if call.Version != "" {
		b = append(b, `,"version":`...)
		b = jsonenc.AppendString(b, call.Version)
	}
	if call.Depth != 0 {
		b = append(b, `,"depth":`...)
		b = strconv.AppendInt(b, int64(call.Depth), 10)
	}
	if !call.Deadline.IsZero() {
		b = append(b, `,"deadline":"`...)
		b = call.Deadline.UTC().AppendFormat(b, "2006-01-02T15:04:05.999999999Z07:00")
		b = append(b, '"')
	}
	b = append(b, `,"params":`...)
	var err error
	if b, err = appendValue(b, call.Params, 0); err != nil {
		return b[:start], err
	}
	b = append(b, "}}"...)
	n := len(b) - start - 4
	b[start], b[start+1], b[start+2], b[start+3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	return b, nil
}

// appendValue appends v as JSON.
func appendValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > 10000 {
		return b, errTooDeep
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if x {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case string:
		return jsonenc.AppendString(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, errNonFinite
		}
		return appendFloat(b, x), nil
	case map[string]any:
		b = append(b, '{')
		first := true
		for k, e := range x {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = jsonenc.AppendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, e, depth+1); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e, depth+1); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	j, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

type encodeError string

func (e encodeError) Error() string { return string(e) }

const (
	errTooDeep   = encodeError("params nested too deeply")
	errNonFinite = encodeError("params hold NaN or an infinity, which JSON cannot carry")
)

// appendFloat writes a float64 so that it reads back as a float.
func appendFloat(b []byte, f float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	return append(b, ".0"...)
}

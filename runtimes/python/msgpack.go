package python

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	mpw "github.com/aios-host/aios-host/guest/go/wire"
	"github.com/aios-host/aios-host/internal/wire"
)

// The MessagePack side of the worker protocol (wire format "msgpack", the
// default when the worker's interpreter has the msgpack module; see
// internal/wire for the hello exchange that chooses it). The envelopes are
// those of the JSON side, key for key: the call frame is encoded by hand
// (guest/go/wire's appenders), result frames of the SDK's fixed shape are
// decoded by a direct decoder (mpw.DecodeValue: canonical values, bin,
// extensions, NaN and non-string keys refused), anything else by
// abi.MsgPack.

// appendCallFrameMsgpack is appendCallFrame in MessagePack.
func appendCallFrameMsgpack(b []byte, id string, call *abi.ToolCall, spinUS int64) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	n := 4
	if spinUS > 0 {
		n++
	}
	b = mpw.AppendMapHeader(b, n)
	b = mpw.AppendInt(mpw.AppendString(b, "v"), abi.FormatVersion)
	b = mpw.AppendString(mpw.AppendString(b, "kind"), abi.KindCall)
	b = mpw.AppendString(mpw.AppendString(b, "id"), id)
	if spinUS > 0 {
		b = mpw.AppendInt(mpw.AppendString(b, "spin"), spinUS)
	}
	b = mpw.AppendString(b, "call")
	m := 3 // id, tool, params
	for _, set := range []bool{call.Caller != "", call.ParentID != "", call.Version != "", call.Depth != 0, !call.Deadline.IsZero()} {
		if set {
			m++
		}
	}
	b = mpw.AppendMapHeader(b, m)
	b = mpw.AppendString(mpw.AppendString(b, "id"), id)
	b = mpw.AppendString(mpw.AppendString(b, "tool"), call.Tool)
	if call.Caller != "" {
		b = mpw.AppendString(mpw.AppendString(b, "caller"), call.Caller)
	}
	if call.ParentID != "" {
		b = mpw.AppendString(mpw.AppendString(b, "parent_id"), call.ParentID)
	}
	if call.Version != "" {
		b = mpw.AppendString(mpw.AppendString(b, "version"), call.Version)
	}
	if call.Depth != 0 {
		b = mpw.AppendInt(mpw.AppendString(b, "depth"), int64(call.Depth))
	}
	if !call.Deadline.IsZero() {
		b = mpw.AppendString(mpw.AppendString(b, "deadline"), call.Deadline.UTC().Format("2006-01-02T15:04:05.999999999Z07:00"))
	}
	b = mpw.AppendString(b, "params")
	var err error
	if b, err = appendParamsMsgpack(b, call.Params); err != nil {
		return b[:start], err
	}
	size := len(b) - start - 4
	b[start], b[start+1], b[start+2], b[start+3] = byte(size>>24), byte(size>>16), byte(size>>8), byte(size)
	return b, nil
}

// appendParamsMsgpack appends canonical params; other Go values are
// normalized first (as the JSON side's encoding/json fallback does).
func appendParamsMsgpack(b []byte, params any) ([]byte, error) {
	mark := len(b)
	out, err := appendMsgpackValue(b, params, 0)
	if err == nil {
		return out, nil
	}
	if errors.Is(err, mpw.ErrUnsupported) {
		n, nerr := abi.Normalize(params)
		if nerr != nil {
			return b[:mark], encodeError("params are not JSON: " + nerr.Error())
		}
		if out, err = appendMsgpackValue(b[:mark], n, 0); err == nil {
			return out, nil
		}
	}
	var ee encodeError
	if errors.As(err, &ee) {
		return b[:mark], ee
	}
	return b[:mark], encodeError("params: " + err.Error())
}

// appendMsgpackValue appends a canonical value. A string that is not
// valid UTF-8 goes with U+FFFD for each bad byte, as the JSON side
// (encoding/json's rule) sends it: Python's decoder would refuse it.
func appendMsgpackValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > 10000 {
		return b, errTooDeep
	}
	var err error
	switch x := v.(type) {
	case nil:
		return mpw.AppendNil(b), nil
	case bool:
		return mpw.AppendBool(b, x), nil
	case string:
		return appendMsgpackString(b, x), nil
	case int64:
		return mpw.AppendInt(b, x), nil
	case int:
		return mpw.AppendInt(b, int64(x)), nil
	case uint64:
		return mpw.AppendUint(b, x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, errNonFinite
		}
		return mpw.AppendFloat(b, x), nil
	case map[string]any:
		b = mpw.AppendMapHeader(b, len(x))
		for k, e := range x {
			b = appendMsgpackString(b, k)
			if b, err = appendMsgpackValue(b, e, depth+1); err != nil {
				return b, err
			}
		}
		return b, nil
	case []any:
		b = mpw.AppendArrayHeader(b, len(x))
		for _, e := range x {
			if b, err = appendMsgpackValue(b, e, depth+1); err != nil {
				return b, err
			}
		}
		return b, nil
	}
	return b, mpw.ErrUnsupported
}

func appendMsgpackString(b []byte, s string) []byte {
	if utf8.ValidString(s) {
		return mpw.AppendString(b, s)
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError) // each bad byte, as encoding/json
		} else {
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	return mpw.AppendString(b, sb.String())
}

// valueError is a well-formed MessagePack frame whose value is not a JSON
// value (bytes, a NaN, a map key that is not a string, an extension):
// the call it answers fails with InvalidResult (a host call with
// InvalidParams), and the worker lives on, as for the JSON encoder's
// refusal in the SDK.
type valueError struct {
	kind, id string
	host     *abi.HostCall // kind host_call: its call id and op
	err      error
}

func (e *valueError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.kind, e.id, e.err)
}

// decodeMsgpackFrame decodes one MessagePack envelope from a worker.
func decodeMsgpackFrame(frame []byte) (*abi.Envelope, error) {
	if env, ok, verr := decodeMsgpackResult(frame); ok {
		return env, nil
	} else if verr != nil {
		return nil, verr
	}
	var env abi.Envelope
	if err := abi.MsgPack.Unmarshal(frame, &env); err != nil {
		// A dict key that is not a string (a host call's arguments, an
		// error's data): read as json.dumps would write it, as results
		// are, by decoding the frame with the key conversion and again
		// from that. Only frames the first decoding refused pay for it.
		if conv, ok := withPyKeys(frame); ok {
			return conv, nil
		}
		if ve := msgpackValueError(frame, err); ve != nil {
			return nil, ve
		}
		return nil, &protocolError{fmt.Sprintf("the worker wrote an unreadable frame: %v (%s)", err, wire.Quote(frame, 64))}
	}
	// The decoding above reads a dict key None (a nil key) as "", where
	// json.dumps, and so the JSON wire and results, write "null": such a
	// frame is read with the key conversion too. A frame without the nil
	// byte (0xc0, never part of UTF-8 text) holds no nil key.
	if bytes.IndexByte(frame, 0xc0) >= 0 && hasNilKey(frame) {
		if conv, ok := withPyKeys(frame); ok {
			return conv, nil
		}
	}
	return &env, nil
}

// hasNilKey reports whether a map of the MessagePack value in frame has a
// nil key. It allocates nothing for frames nested up to 16 levels.
func hasNilKey(frame []byte) bool {
	type container struct {
		isMap bool
		left  int // items (a map's keys and values) not yet started
		next  int // index of the next item
	}
	var buf [16]container
	stack := buf[:0]
	found := false
	_, _ = mpw.Walk(frame, func(c byte, n int) bool {
		for len(stack) > 0 && stack[len(stack)-1].left == 0 {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.isMap && top.next%2 == 0 && c == 0xc0 {
				found = true
				return false
			}
			top.next++
			top.left--
		}
		switch {
		case c >= 0x80 && c <= 0x8f, c == 0xde, c == 0xdf:
			if n > 0 {
				stack = append(stack, container{isMap: true, left: 2 * n})
			}
		case c >= 0x90 && c <= 0x9f, c == 0xdc, c == 0xdd:
			if n > 0 {
				stack = append(stack, container{left: n})
			}
		}
		return true
	})
	return found
}

// withPyKeys decodes frame with its dict keys converted as json.dumps
// converts them (pyKey); ok is false when that does not make it a valid
// envelope.
func withPyKeys(frame []byte) (*abi.Envelope, bool) {
	v, err := resultDecoder.Decode(frame)
	if err != nil {
		return nil, false
	}
	b, err := abi.MsgPack.Marshal(v)
	if err != nil {
		return nil, false
	}
	var env abi.Envelope
	if abi.MsgPack.Unmarshal(b, &env) != nil {
		return nil, false
	}
	return &env, true
}

// decodeMsgpackResult is the fast path: a result frame of the SDK's fixed
// shape {"v":1,"kind":"result","id":ID,"result":{"call_id":ID,"value":V}}
// with V a JSON value. ok is false for anything else; a frame of that
// shape whose V is not a JSON value (bin, an extension, NaN, a dict key
// json.dumps refuses, nesting past the limit) is a *valueError, so that
// abi.MsgPack's more lenient decoding (a nil key read as "") never sees
// it.
func decodeMsgpackResult(frame []byte) (*abi.Envelope, bool, *valueError) {
	return decodeMsgpackResultWith(frame, resultDecoder)
}

// decodeMsgpackResultWith is decodeMsgpackResult with dec for the value.
func decodeMsgpackResultWith(frame []byte, dec mpw.Decoder) (*abi.Envelope, bool, *valueError) {
	var it mpw.MapIter
	if it.Reset(frame) != nil {
		return nil, false, nil
	}
	var id, cid string
	var result []byte
	keys := 0
	for it.Next() {
		keys++
		switch string(it.Key()) {
		case "v":
			if v := it.Value(); len(v) != 1 || v[0] != abi.FormatVersion {
				return nil, false, nil
			}
		case "kind":
			if k, err := mpw.StringBytes(it.Value()); err != nil || string(k) != abi.KindResult {
				return nil, false, nil
			}
		case "id":
			// An id that is not UTF-8 takes the slow path, which
			// reads it as JSON would (abi.MsgPack: U+FFFD).
			s, err := mpw.ReadString(it.Value())
			if err != nil || !abi.ValidUTF8(s) {
				return nil, false, nil
			}
			id = s
		case "result":
			result = it.Value()
		default:
			return nil, false, nil
		}
	}
	if it.Err() != nil || keys != 4 || result == nil {
		return nil, false, nil
	}
	var val []byte
	if it.Reset(result) != nil {
		return nil, false, nil
	}
	keys = 0
	for it.Next() {
		keys++
		switch string(it.Key()) {
		case "call_id":
			s, err := mpw.ReadString(it.Value())
			if err != nil || !abi.ValidUTF8(s) {
				return nil, false, nil
			}
			cid = s
		case "value":
			val = it.Value()
		default:
			return nil, false, nil
		}
	}
	if it.Err() != nil || keys != 2 || val == nil || cid != id {
		return nil, false, nil
	}
	v, err := dec.Decode(val)
	if err != nil {
		return nil, false, &valueError{kind: abi.KindResult, id: id, err: withKeyPath(val, err)}
	}
	if !abi.IsCanonical(v) {
		// A string or member name that is not UTF-8, which the wire
		// decoder does not check: the full path refuses it in
		// abi.Normalize's words, as it refuses it in a host call.
		return nil, false, nil
	}
	return &abi.Envelope{V: 1, Kind: abi.KindResult, ID: id, Result: &abi.ToolResult{CallID: cid, Value: v}}, true, nil
}

// msgpackValueError tells a frame that is well-formed MessagePack with the
// envelope's shape but a value that is not JSON (the result's value or
// error data, a host call's args) from a broken one (nil): the kind and
// id are read without the values.
func msgpackValueError(frame []byte, err error) *valueError {
	if _, serr := mpw.SkipMessage(frame, 520); serr != nil {
		return nil
	}
	var hdr struct {
		Kind   string `msgpack:"kind"`
		ID     string `msgpack:"id"`
		Result *struct {
			CallID string `msgpack:"call_id"`
		} `msgpack:"result"`
		Host *struct {
			CallID string `msgpack:"call_id"`
			Op     string `msgpack:"op"`
		} `msgpack:"host"`
	}
	if abi.MsgPack.Unmarshal(frame, &hdr) != nil || hdr.ID == "" {
		return nil
	}
	switch {
	case hdr.Kind == abi.KindResult && hdr.Result != nil:
		return &valueError{kind: hdr.Kind, id: hdr.ID, err: valueReason(frame, "result", err)}
	case hdr.Kind == abi.KindHostCall && hdr.Host != nil:
		return &valueError{kind: hdr.Kind, id: hdr.ID, host: &abi.HostCall{CallID: hdr.Host.CallID, Op: hdr.Host.Op}, err: valueReason(frame, "host", err)}
	}
	return nil
}

// valueReason is why the value under key (result or host) of frame is
// not JSON: the direct decoder's words when it has some, else err.
func valueReason(frame []byte, key string, err error) error {
	inner, ok, ferr := mpw.MapField(frame, key)
	if ferr != nil || !ok {
		return err
	}
	if _, derr := resultDecoder.Decode(inner); derr != nil {
		if key == "result" {
			if val, ok, _ := mpw.MapField(inner, "value"); ok {
				return withKeyPath(val, derr)
			}
		}
		return derr
	}
	return err
}

// withKeyPath is err, the decoder's refusal of the result value val,
// with the path of the dict holding the key refused, when that is what
// it refused: as the SDK words a key json.dumps refuses (_KEY_AT), since
// its words alone named no place (TestRefusedKeyNamesItsDict).
func withKeyPath(val []byte, err error) error {
	if p, ok := refusedKeyPath(val); ok {
		return fmt.Errorf("%v (a key of the dict at %s)", err, p)
	}
	return err
}

// refusedKeyPath is the path ($.a[1].b, as the SDK writes one) of the
// dict holding the first key of the MessagePack value data that pyKey
// refuses; ok is false when there is none, or data is refused for
// another reason first.
func refusedKeyPath(data []byte) (path string, ok bool) {
	// The first refused key becomes a string no decoded key can be (not
	// UTF-8, and pyKey makes none), later ones strings of their own.
	const mark = "\xff\x00refused key"
	n := 0
	d := mpw.Decoder{Key: func(k any) (string, error) {
		s, err := pyKey(k)
		if err == nil {
			return s, nil
		}
		n++
		if n == 1 {
			return mark, nil
		}
		return mark + strconv.Itoa(n), nil
	}}
	v, err := d.Decode(data)
	if err != nil || n == 0 {
		return "", false
	}
	var find func(v any, path string) (string, bool)
	find = func(v any, path string) (string, bool) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x[mark]; ok {
				return path, true
			}
			for k, y := range x {
				if p, ok := find(y, path+"."+k); ok {
					return p, true
				}
			}
		case []any:
			for i, y := range x {
				if p, ok := find(y, path+"["+strconv.Itoa(i)+"]"); ok {
					return p, true
				}
			}
		}
		return "", false
	}
	return find(v, "$")
}

// resultDecoder decodes a result's value: a dict key that is not a
// string becomes the string json.dumps makes of it (pyKey), so that both
// wire formats give the same value.
var resultDecoder = mpw.Decoder{Key: pyKey}

// pyKey is json.dumps's conversion of a dict key that is not a string:
// None → "null", True → "true", False → "false", an integer in decimal,
// a float as repr writes it. What json.dumps refuses (a tuple; bytes,
// NaN and the infinities, which the SDK finds itself) is refused in its
// words, "keys must be str, int, float, bool or None, not tuple".
func pyKey(k any) (string, error) {
	switch x := k.(type) {
	case nil:
		return "null", nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float64:
		return pyFloatRepr(x), nil
	case []any:
		// A list cannot be a dict key: an array key is a tuple.
		return "", errors.New("keys must be str, int, float, bool or None, not tuple")
	}
	return "", fmt.Errorf("keys must be str, int, float, bool or None, not %T", k)
}

// pyFloatRepr is Python's repr of a finite float (what json.dumps writes):
// the shortest digits that read back the same, in exponent form when the
// decimal exponent is below -4 or above 15 (1e-05, 1e+16), else in fixed
// form with at least one decimal (2.0, 0.0001, 1000000000000000.0).
func pyFloatRepr(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64) // refused by the SDK before it gets here
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // "-d.ddde±XX"
	exp, err := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if err == nil && (exp < -4 || exp > 15) {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

package abi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/aios-host/aios-host/guest/go/wire"
)

// Codec encodes and decodes ABI messages. Both codecs carry exactly the same
// meaning: a message encoded with one and decoded with the other is equal
// after Normalize.
type Codec interface {
	// Name is "msgpack" or "json".
	Name() string
	Marshal(v any) ([]byte, error)
	// Unmarshal decodes into v (a pointer to a message type or to any) and
	// leaves every generic value in canonical form.
	Unmarshal(data []byte, v any) error
}

// The two codecs.
var (
	MsgPack Codec = msgpackCodec{}
	JSON    Codec = jsonCodec{}
)

// CodecByName returns the codec called name ("msgpack", "json").
func CodecByName(name string) (Codec, error) {
	switch name {
	case "msgpack", "messagepack", "":
		return MsgPack, nil
	case "json":
		return JSON, nil
	}
	return nil, fmt.Errorf("unknown encoding %q (want msgpack or json)", name)
}

// DetectCodec tells from the first byte which codec encoded a message whose
// top level is a map (every ABI message is): '{' (after JSON white space) is
// JSON, a MessagePack map header (0x80–0x8f, 0xde, 0xdf) is MessagePack.
func DetectCodec(data []byte) (Codec, error) {
	b := bytes.TrimLeft(data, " \t\r\n")
	if len(b) == 0 {
		return nil, errors.New("empty message")
	}
	switch c := b[0]; {
	case c == '{':
		return JSON, nil
	case c >= 0x80 && c <= 0x8f, c == 0xde, c == 0xdf:
		return MsgPack, nil
	default:
		return nil, fmt.Errorf("unknown encoding: first byte 0x%02x is neither a JSON object nor a MessagePack map", c)
	}
}

type msgpackCodec struct{}

func (msgpackCodec) Name() string { return "msgpack" }

func (msgpackCodec) Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetCustomStructTag("msgpack")
	enc.UseCompactInts(true)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (msgpackCodec) Unmarshal(data []byte, v any) (err error) {
	if err := checkMsgpack(data); err != nil {
		return err // "msgpack: … at byte N"
	}
	// The decoder panics on some malformed input (nil for a struct-typed
	// field of an array-encoded struct: reflect's IsNil on a struct, found
	// by FuzzUnmarshalEnvelope); the message comes from a guest or a
	// worker process, so that is an error of the message.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("msgpack: malformed message: %v", r)
		}
	}()
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	dec.UseLooseInterfaceDecoding(true)
	if err := dec.Decode(v); err != nil {
		if named := msgpackMember(data, v); named != "" {
			return fmt.Errorf("msgpack: %s: %s", named, strings.TrimPrefix(err.Error(), "msgpack: "))
		}
		if strings.HasPrefix(err.Error(), "msgpack: ") {
			return err // (the decoder's own say where they come from)
		}
		return fmt.Errorf("msgpack: %w", err)
	}
	return normalizeMessage(v)
}

// msgpackMember names the member of data that has the wrong type for v,
// as the JSON codec does ("member "tools[1].idempotent" is a string, which
// is not what it must be (a boolean)"), or "": the decoder's own words,
// "invalid code=a3 decoding bool", named none. It reads data as a generic
// value and decodes that, as JSON, into a new v.
func msgpackMember(data []byte, v any) string {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return ""
	}
	var g any
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	dec.UseLooseInterfaceDecoding(true)
	if dec.Decode(&g) != nil {
		return ""
	}
	j, err := json.Marshal(g)
	if err != nil {
		return ""
	}
	err = unmarshalUseNumber(j, reflect.New(t.Elem()).Interface())
	if err == nil || !strings.HasPrefix(err.Error(), "json: member ") {
		return ""
	}
	return strings.Replace(strings.TrimPrefix(err.Error(), "json: "), " is a JSON ", " is a ", 1)
}

// maxMessageDepth bounds the nesting of a decoded message: a value's
// MaxDepth plus the envelope's own levels (envelope, call, params).
const maxMessageDepth = MaxDepth + 8

// checkMsgpack refuses a message whose strings, binaries, extensions or
// containers declare more than the bytes that follow, or that nests deeper
// than maxMessageDepth (wire.SkipMessage), before vmihailenco/msgpack sees
// it: that decoder allocates a container's declared length before reading
// any item, so a 6-byte array header asking for four billion items made it
// allocate tens of gigabytes and ended the process with a fatal
// out-of-memory error (found by FuzzUnmarshalEnvelope), and it recurses
// without a depth limit. Every message from a guest or a worker process
// passes here first, so a provider cannot end the host with a few bytes.
func checkMsgpack(data []byte) error {
	_, err := wire.SkipMessage(data, maxMessageDepth)
	return err
}

type jsonCodec struct{}

func (jsonCodec) Name() string { return "json" }

func (jsonCodec) Marshal(v any) ([]byte, error) { return json.Marshal(jsonMessage(v)) }

// ForJSON returns v ready for encoding/json so that its floats read back as
// floats: encoding/json writes a whole float64 below 1e21 as an integer
// literal, and from 2^53 on that literal (1152921504606847000 for 2^60) is
// read by the host (UnmarshalJSONValue, wire.Number) as an exact integer
// that is not the float's value, and by a JS worker as a BigInt. Such
// floats become json.Numbers in exponent form (1.152921504606847e+18).
// A nil []any or map[string]any (a Go tool's `var out []any` with nothing
// appended) becomes an empty one: the host counts, validates and hashes it
// (audit result_hash) as [] or {}, while encoding/json wrote null, so a
// client got null where the tool's return schema said array and the
// audit record hashed "[]". v is returned as it is when it holds neither
// (the common case: one walk, no allocation); otherwise the maps and
// slices on their paths are copied, never changed.
func ForJSON(v any) any {
	if !needsForJSON(v, 0) {
		return v
	}
	return forJSON(v)
}

func bigWholeFloat(f float64) bool {
	a := math.Abs(f)
	return a >= 1<<53 && a < 1e21 && a == math.Trunc(a)
}

func needsForJSON(v any, depth int) bool {
	if depth > MaxDepth {
		return false // refused elsewhere
	}
	switch x := v.(type) {
	case float64:
		return bigWholeFloat(x)
	case []any:
		if x == nil {
			return true
		}
		for _, e := range x {
			if needsForJSON(e, depth+1) {
				return true
			}
		}
	case map[string]any:
		if x == nil {
			return true
		}
		for _, e := range x {
			if needsForJSON(e, depth+1) {
				return true
			}
		}
	}
	return false
}

func forJSON(v any) any {
	switch x := v.(type) {
	case float64:
		if bigWholeFloat(x) {
			return json.Number(strconv.FormatFloat(x, 'e', -1, 64))
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = forJSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = forJSON(e)
		}
		return out
	}
	return v
}

// jsonMessage is msg with the values it carries (params, results, error
// data, host-call arguments) passed through ForJSON; msg itself is not
// changed (the structs on the way are copied when a value changes).
func jsonMessage(msg any) any {
	switch m := msg.(type) {
	case *Envelope:
		if m == nil {
			return msg
		}
		c := *m
		changed := false
		if m.Call != nil && needsForJSON(m.Call.Params, 0) {
			call := *m.Call
			call.Params = forJSON(call.Params)
			c.Call, changed = &call, true
		}
		if r := jsonResult(m.Result); r != m.Result {
			c.Result, changed = r, true
		}
		if m.Host != nil && needsForJSON(m.Host.Args, 0) {
			h := *m.Host
			h.Args = forJSON(h.Args)
			c.Host, changed = &h, true
		}
		if changed {
			return &c
		}
	case *ToolResult:
		return jsonResult(m)
	case *ToolCall:
		if m != nil && needsForJSON(m.Params, 0) {
			c := *m
			c.Params = forJSON(c.Params)
			return &c
		}
	}
	return msg
}

// jsonResult is r with its value and error data passed through ForJSON
// (r itself when they need no change).
func jsonResult(r *ToolResult) *ToolResult {
	if r == nil {
		return r
	}
	value := needsForJSON(r.Value, 0)
	data := r.Error != nil && needsForJSON(r.Error.Data, 0)
	if !value && !data {
		return r
	}
	c := *r
	if value {
		c.Value = forJSON(c.Value)
	}
	if data {
		e := *r.Error
		e.Data = forJSON(e.Data)
		c.Error = &e
	}
	return &c
}

func (jsonCodec) Unmarshal(data []byte, v any) error {
	if err := unmarshalUseNumber(data, v); err != nil {
		return err
	}
	return normalizeMessage(v)
}

func unmarshalUseNumber(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			// "cannot unmarshal number into Go struct field ToolError.error.code
			// of type abi.ErrorCode" names Go types; say it in JSON terms.
			return fmt.Errorf("json: member %q is a JSON %s, which is not what it must be (%s)", memberPath(data, te), te.Value, jsonKind(te.Type))
		}
		if strings.HasPrefix(err.Error(), "json: ") {
			return err
		}
		return fmt.Errorf("json: %w", err)
	}
	// Only white space may follow (dec.More was false before a closing
	// bracket or brace: `{"a":1}},"b":2}` read as {"a":1}).
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return fmt.Errorf("json: trailing data after the message at byte %d: %.20q", len(data)-len(rest), rest)
	}
	return nil
}

// memberPath names the member of te in data with its array indexes,
// "tools[1].idempotent": encoding/json's te.Field, "tools.idempotent",
// leaves them out, so a guest's 12th tool was not told from its first.
// It finds the value that ends (or, for an object or array, starts) at
// te.Offset; te.Field when that is not the member te names.
func memberPath(data []byte, te *json.UnmarshalTypeError) string {
	type frame struct {
		arr     bool
		idx     int
		key     string
		wantKey bool
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.arr {
				fmt.Fprintf(&b, "[%d]", f.idx)
			} else {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		return b.String()
	}
	// The path found must be te.Field with indexes added.
	found := func(p string) string {
		var b strings.Builder
		for i := 0; i < len(p); i++ {
			if p[i] == '[' {
				for i < len(p) && p[i] != ']' {
					i++
				}
				continue
			}
			b.WriteByte(p[i])
		}
		if b.String() != te.Field {
			return te.Field
		}
		return p
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return te.Field
		}
		n := len(stack)
		if n > 0 && !stack[n-1].arr && stack[n-1].wantKey {
			if k, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].wantKey = k, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if dec.InputOffset() >= te.Offset {
				return found(path())
			}
			stack = append(stack, frame{arr: tok == json.Delim('['), wantKey: tok == json.Delim('{')})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:n-1]
		default:
			if dec.InputOffset() >= te.Offset {
				return found(path())
			}
		}
		if n = len(stack); n == 0 {
			return te.Field
		}
		if stack[n-1].arr {
			stack[n-1].idx++
		} else {
			stack[n-1].wantKey = true
		}
	}
}

// ValidText is s made valid UTF-8 the way encoding/json reads a JSON
// string: each byte that is not part of a valid sequence becomes U+FFFD.
// The JSON codec's strings are so already; MessagePack's are whatever bytes
// the sender put there, so without this a guest's error message, call id
// or log line meant one thing in JSON and another (bytes that are not text)
// in MessagePack (found by FuzzUnmarshalEnvelope).
func ValidText(s string) string {
	if ValidUTF8(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// validText makes the string field *s ValidText.
func validText(s *string) { *s = ValidText(*s) }

// normalizeMessage puts the generic values inside a decoded message into
// canonical form, and its text fields into valid UTF-8 (validText).
func normalizeMessage(v any) error {
	var err error
	norm := func(p *any) {
		if err == nil && *p != nil {
			*p, err = Normalize(*p)
		}
	}
	normMap := func(m map[string]any) {
		if err == nil && m != nil {
			_, err = Normalize(m)
		}
	}
	switch m := v.(type) {
	case *any:
		norm(m)
	case *ToolCall:
		for _, p := range []*string{&m.ID, &m.ParentID, &m.Caller, &m.Tool, &m.Version} {
			validText(p)
		}
		norm(&m.Params)
	case *ToolResult:
		validText(&m.CallID)
		norm(&m.Value)
		if m.Error != nil {
			validText((*string)(&m.Error.Code))
			validText(&m.Error.Message)
			norm(&m.Error.Data)
		}
	case *ToolUnregister:
		validText(&m.ProviderID)
		for i := range m.Tools {
			validText(&m.Tools[i])
		}
	case *LogRecord:
		for _, p := range []*string{&m.Level, &m.Message, &m.CallID} {
			validText(p)
		}
	case *ToolRegister:
		// Which tool and schema: the path alone ("$.properties.x") read
		// as one from the message's root.
		for i := range m.Tools {
			for _, s := range []struct {
				name   string
				schema map[string]any
			}{{"parameters", m.Tools[i].Parameters}, {"returns", m.Tools[i].Returns}} {
				if normMap(s.schema); err != nil {
					return fmt.Errorf("tools[%d] (%.64q) %s: %w", i, m.Tools[i].Name, s.name, err)
				}
			}
		}
	case *ToolDef:
		normMap(m.Parameters)
		normMap(m.Returns)
	case *Envelope:
		validText(&m.Kind)
		validText(&m.ID)
		if m.Register != nil {
			err = normalizeMessage(m.Register)
		}
		if m.Unregister != nil {
			_ = normalizeMessage(m.Unregister)
		}
		if m.Log != nil {
			_ = normalizeMessage(m.Log)
		}
		if err == nil && m.Call != nil {
			err = normalizeMessage(m.Call)
		}
		if err == nil && m.Result != nil {
			err = normalizeMessage(m.Result)
		}
		if err == nil && m.Host != nil {
			err = normalizeMessage(m.Host)
		}
	case *HostCall:
		validText(&m.CallID)
		validText(&m.Op)
		err = normArgs(m)
	case *map[string]any:
		normMap(*m)
	case *[]any:
		var x any = *m
		norm(&x)
	}
	return err
}

// normArgs puts a host call's arguments into canonical form. Each argument
// is a value of its own, nested at most as deep as a value may be: the
// params of a call_tool are level 0, as when an in-process runtime calls
// Env.CallTool (counted from the arguments map, params 512 levels deep
// were a bad frame, and the worker that sent them was killed).
func normArgs(h *HostCall) error {
	args, ok := h.Args.(map[string]any)
	if !ok {
		if h.Args == nil {
			return nil
		}
		n, err := Normalize(h.Args)
		h.Args = n
		return err
	}
	for k, v := range args {
		n, err := normalize(v, &valuePath{up: &valuePath{}, key: k, member: true, raw: true}, 0, nil)
		if err != nil {
			return err
		}
		args[k] = n
	}
	return nil
}

// jsonKind names the JSON kind a Go type decodes from, for messages.
func jsonKind(t reflect.Type) string {
	switch n := jsonTypeName(t); n {
	case "":
		return "a value"
	case "integer", "array", "object":
		return "an " + n
	default:
		return "a " + n
	}
}

// jsonTypeName is the JSON type a Go type decodes from ("boolean",
// "string", "integer", "number", "array", "object"), or "" when it is none
// of them (an interface).
func jsonTypeName(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return ""
}

// JSONTypeMismatch reads an encoding/json *UnmarshalTypeError in JSON's
// words rather than Go's: the member's dotted path (empty at the top), the
// JSON type the field takes ("integer") and the one the input had
// ("string"). ok is false for any other error.
func JSONTypeMismatch(err error) (field, want, got string, ok bool) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return "", "", "", false
	}
	want = jsonTypeName(te.Type)
	if want == "" {
		want = "another type"
	}
	got = te.Value
	if strings.HasPrefix(got, "number") {
		got = "number" // "number 1.5"
	}
	return te.Field, want, got, true
}

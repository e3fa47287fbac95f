package abi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
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
		return fmt.Errorf("msgpack: %w", err)
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
		return fmt.Errorf("msgpack: %w", err)
	}
	return normalizeMessage(v)
}

// maxMessageDepth bounds the nesting of a decoded message: a value's
// maxDepth plus the envelope's own levels (envelope, call, params).
const maxMessageDepth = maxDepth + 8

// checkMsgpack walks the first MessagePack value in data without decoding
// it and refuses it when a string, binary, extension or container declares
// more than the bytes that follow (a container's items take at least one
// byte each), or when it nests deeper than maxMessageDepth. The decoder
// (vmihailenco/msgpack) allocates a container's declared length before
// reading its items, so without this a 6-byte array header asking for four
// billion items made it allocate tens of gigabytes and ended the process
// with a fatal out-of-memory error (found by FuzzUnmarshalEnvelope); it
// also recurses without a depth limit. Every message from a guest or a
// worker process passes here first, so a provider cannot end the host
// with a few bytes.
func checkMsgpack(data []byte) error {
	_, err := skipMsgpack(data, 0, 0)
	return err
}

// skipMsgpack returns the offset just past the value at off.
func skipMsgpack(data []byte, off, depth int) (int, error) {
	if depth > maxMessageDepth {
		return off, fmt.Errorf("value at offset %d nested deeper than %d levels", off, maxMessageDepth)
	}
	if off >= len(data) {
		return off, fmt.Errorf("unexpected end of data at offset %d", off)
	}
	c := data[off]
	at := off
	off++
	// size reads a big-endian length of n (at most 4) bytes at off.
	size := func(n int) (int, error) {
		if len(data)-off < n {
			return 0, fmt.Errorf("unexpected end of data at offset %d", off)
		}
		var v uint64
		for _, b := range data[off : off+n] {
			v = v<<8 | uint64(b)
		}
		off += n
		return int(v), nil // at most 2^32-1
	}
	skip := func(n int) (int, error) {
		if n > len(data)-off {
			return off, fmt.Errorf("%d bytes at offset %d run past the end of the %d-byte message", n, at, len(data))
		}
		return off + n, nil
	}
	items := func(n int) (int, error) {
		if n > len(data)-off {
			return off, fmt.Errorf("container of %d items at offset %d is longer than the remaining %d bytes", n, at, len(data)-off)
		}
		var err error
		for range n {
			if off, err = skipMsgpack(data, off, depth+1); err != nil {
				return off, err
			}
		}
		return off, nil
	}
	var n int
	var err error
	switch {
	case c <= 0x7f, c >= 0xe0, c == 0xc0, c == 0xc2, c == 0xc3:
		return off, nil
	case c >= 0xa0 && c <= 0xbf:
		return skip(int(c & 0x1f))
	case c >= 0x90 && c <= 0x9f:
		return items(int(c & 0x0f))
	case c >= 0x80 && c <= 0x8f:
		return items(2 * int(c&0x0f))
	}
	switch c {
	case 0xcc, 0xcd, 0xce, 0xcf: // uint 8..64
		return skip(1 << (c - 0xcc))
	case 0xd0, 0xd1, 0xd2, 0xd3: // int 8..64
		return skip(1 << (c - 0xd0))
	case 0xca:
		return skip(4)
	case 0xcb:
		return skip(8)
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8: // fixext 1..16: type byte + data
		return skip(1 + 1<<(c-0xd4))
	case 0xd9, 0xda, 0xdb: // str 8..32
		if n, err = size(1 << (c - 0xd9)); err == nil {
			return skip(n)
		}
	case 0xc4, 0xc5, 0xc6: // bin 8..32
		if n, err = size(1 << (c - 0xc4)); err == nil {
			return skip(n)
		}
	case 0xc7, 0xc8, 0xc9: // ext 8..32: length, type byte, data
		if n, err = size(1 << (c - 0xc7)); err == nil {
			return skip(1 + n)
		}
	case 0xdc, 0xdd: // array 16, 32
		if n, err = size(2 << (c - 0xdc)); err == nil {
			return items(n)
		}
	case 0xde, 0xdf: // map 16, 32
		if n, err = size(2 << (c - 0xde)); err == nil {
			return items(2 * n)
		}
	default: // 0xc1, never used
		return off, fmt.Errorf("reserved type byte 0xc1 at offset %d", at)
	}
	return off, err
}

type jsonCodec struct{}

func (jsonCodec) Name() string { return "json" }

func (jsonCodec) Marshal(v any) ([]byte, error) { return json.Marshal(v) }

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
		return fmt.Errorf("json: %w", err)
	}
	if dec.More() {
		return errors.New("json: trailing data after the message")
	}
	return nil
}

// normalizeMessage puts the generic values inside a decoded message into
// canonical form.
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
		norm(&m.Params)
	case *ToolResult:
		norm(&m.Value)
		if m.Error != nil {
			norm(&m.Error.Data)
		}
	case *ToolRegister:
		for i := range m.Tools {
			normMap(m.Tools[i].Parameters)
			normMap(m.Tools[i].Returns)
		}
	case *ToolDef:
		normMap(m.Parameters)
		normMap(m.Returns)
	case *Envelope:
		if m.Register != nil {
			err = normalizeMessage(m.Register)
		}
		if err == nil && m.Call != nil {
			err = normalizeMessage(m.Call)
		}
		if err == nil && m.Result != nil {
			err = normalizeMessage(m.Result)
		}
		if err == nil && m.Host != nil {
			norm(&m.Host.Args)
		}
	case *map[string]any:
		normMap(*m)
	case *[]any:
		var x any = *m
		norm(&x)
	}
	return err
}

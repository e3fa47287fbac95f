package abi

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/guest/go/wire"
)

func sampleCall() *ToolCall {
	return &ToolCall{
		ID: "c1", ParentID: "p0", Caller: "cli", Tool: "echo", Version: "^1.2",
		Params: map[string]any{
			"null": nil, "bool": true, "int": int64(-42), "big": int64(1 << 62),
			"float": 1.5, "str": "héllo 世界 🎉", "arr": []any{int64(1), "x", false},
			"obj": map[string]any{"nested": map[string]any{"deep": []any{}}},
		},
		Deadline: time.Unix(1700000000, 123000000).UTC(),
		Depth:    2,
	}
}

func TestCodecsRoundTripIdenticalMeaning(t *testing.T) {
	for _, c := range []Codec{MsgPack, JSON} {
		t.Run(c.Name(), func(t *testing.T) {
			in := sampleCall()
			b, err := c.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DetectCodec(b)
			if err != nil || got.Name() != c.Name() {
				t.Fatalf("DetectCodec = %v, %v; want %s", got, err, c.Name())
			}
			var out ToolCall
			if err := c.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			if !out.Deadline.Equal(in.Deadline) {
				t.Fatalf("deadline %v != %v", out.Deadline, in.Deadline)
			}
			out.Deadline = in.Deadline
			if !reflect.DeepEqual(&out, in) {
				t.Fatalf("round trip mismatch\n got %#v\nwant %#v", out, *in)
			}
		})
	}
}

func TestResultAndRegisterRoundTrip(t *testing.T) {
	reg := &ToolRegister{Format: FormatVersion, Provider: ProviderInfo{ID: "org.x.y", Runtime: RuntimeWASM, Capabilities: []string{"CallTool(*)"}},
		Tools: []ToolDef{{Name: "add", Version: "1.0.0", Parameters: map[string]any{"type": "object", "minProperties": int64(1)},
			CapabilityRequired: []string{"ReadSpace(a)"}, Tags: []string{"math"}, Deprecation: &Deprecation{Message: "old"}}}}
	res := &ToolResult{CallID: "c", Error: &ToolError{Code: RateLimited, Message: "slow down", Data: map[string]any{"retry_after_ms": int64(20)}}}
	for _, c := range []Codec{MsgPack, JSON} {
		for _, in := range []any{reg, res, &Envelope{V: 1, Kind: KindResult, ID: "7", Result: res}} {
			if out := roundTrip(t, c, in); !reflect.DeepEqual(out, in) {
				t.Fatalf("%s: mismatch\n got %#v\nwant %#v", c.Name(), out, in)
			}
		}
	}
}

// roundTrip encodes in (a pointer to a message) with c and decodes it into
// a new value of the same type.
func roundTrip(t *testing.T, c Codec, in any) any {
	t.Helper()
	b, err := c.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := reflect.New(reflect.TypeOf(in).Elem()).Interface()
	if err := c.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v", c.Name(), err)
	}
	return out
}

func TestDetectCodecRejectsUnknown(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("   "), []byte("[1]"), {0x01, 0x02}, {0x91, 0x01}} {
		if _, err := DetectCodec(b); err == nil {
			t.Errorf("DetectCodec(%x) accepted", b)
		}
	}
}

func TestJSONUnmarshalErrors(t *testing.T) {
	var c ToolCall
	for _, in := range []string{`{"id":`, `{"id":"x"} trailing`, `{"tool": 5}`} {
		if err := JSON.Unmarshal([]byte(in), &c); err == nil {
			t.Errorf("JSON.Unmarshal(%q) accepted", in)
		}
	}
	if err := MsgPack.Unmarshal([]byte{0x81, 0xa2}, &c); err == nil {
		t.Error("truncated msgpack accepted")
	}
	// A member of the wrong JSON type is named in JSON terms, once.
	var r ToolResult
	err := JSON.Unmarshal([]byte(`{"error": {"code": 5, "message": "m"}}`), &r)
	if err == nil || err.Error() != `json: member "error.code" is a JSON number, which is not what it must be (a string)` {
		t.Errorf("wrong type: %v", err)
	}
	if err := JSON.Unmarshal([]byte(`{"id":`), &c); err == nil || strings.HasPrefix(err.Error(), "json: json:") {
		t.Errorf("truncated JSON: %v", err)
	}
}

func TestFraming(t *testing.T) {
	var buf bytes.Buffer
	for _, p := range [][]byte{[]byte("a"), {}, bytes.Repeat([]byte("z"), 70000)} {
		if err := WriteFrame(&buf, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []int{1, 0, 70000} {
		p, err := ReadFrame(&buf, 0)
		if err != nil || len(p) != want {
			t.Fatalf("ReadFrame = %d bytes, %v; want %d", len(p), err, want)
		}
	}
	if _, err := ReadFrame(&buf, 0); err != io.EOF {
		t.Fatalf("at end: %v, want io.EOF", err)
	}
	// Truncated body.
	if _, err := ReadFrame(bytes.NewReader([]byte{0, 0, 0, 5, 'a'}), 0); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated: %v", err)
	}
	// Over the limit.
	if _, err := ReadFrame(bytes.NewReader([]byte{0, 0, 1, 0}), 10); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("oversized: %v", err)
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 'x'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		for {
			p, err := ReadFrame(r, 1<<16)
			if err != nil {
				return
			}
			if len(p) > 1<<16 {
				t.Fatalf("frame of %d bytes past limit", len(p))
			}
		}
	})
}

func FuzzUnmarshalEnvelope(f *testing.F) {
	for _, c := range []Codec{MsgPack, JSON} {
		b, _ := c.Marshal(&Envelope{V: 1, Kind: KindCall, Call: sampleCall()})
		f.Add(b)
	}
	f.Add([]byte(`{"v":1,"kind":"host_call","host":{"op":"log","args":{"x":1e400}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DetectCodec(b)
		if err != nil {
			return
		}
		var e Envelope
		if err := c.Unmarshal(b, &e); err != nil {
			return
		}
		// Whatever decoded must be canonical and re-encodable by both codecs.
		if e.Call != nil {
			if _, err := Normalize(e.Call.Params); err != nil {
				t.Fatalf("decoded params not canonical: %v", err)
			}
		}
		// ... and reads back as itself from either.
		for _, c2 := range []Codec{MsgPack, JSON} {
			b2, err := c2.Marshal(&e)
			if err != nil {
				t.Fatalf("re-encode with %s: %v", c2.Name(), err)
			}
			var e2 Envelope
			if err := c2.Unmarshal(b2, &e2); err != nil {
				t.Fatalf("%s re-encoding %q does not decode: %v", c2.Name(), b2, err)
			}
			// (Compared in JSON, whose maps' keys are sorted.)
			want, _ := JSON.Marshal(&e)
			if got, err := JSON.Marshal(&e2); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%q through %s:\n got %s (%v)\nwant %s", b, c2.Name(), got, err, want)
			}
		}
	})
}

// TestMsgpackDeclaredLengths: a MessagePack header may declare up to four
// billion items or bytes in a few bytes. Such a message is refused with
// the offset before the decoder sees it (the decoder allocated the
// declared length and the process died of it), and so is nesting past
// the depth limit (the decoder recursed without one). Valid messages,
// including the extension type a deadline is encoded with, still decode.
func TestMsgpackDeclaredLengths(t *testing.T) {
	call := func(params []byte) []byte {
		b := []byte{0x83, 0xa1, 'v', 0x01, 0xa4, 'k', 'i', 'n', 'd', 0xa4, 'c', 'a', 'l', 'l', 0xa4, 'c', 'a', 'l', 'l', 0x81, 0xa6, 'p', 'a', 'r', 'a', 'm', 's'}
		return append(b, params...)
	}
	for _, tc := range []struct {
		name, want string
		params     []byte
	}{
		{"array32", "container of 2737844272 items", []byte{0xdd, 0xa3, 0x30, 0x30, 0x30, 0x00}},
		{"array16", "container of 65535 items", []byte{0xdc, 0xff, 0xff, 0x01}},
		{"map32", "container of 4294967294 items", []byte{0xdf, 0x7f, 0xff, 0xff, 0xff, 0xa1, 'a'}},
		{"map16", "container of 512 items", []byte{0xde, 0x01, 0x00, 0xa1, 'a', 0x01}},
		{"fixarray", "container of 15 items", []byte{0x9f, 0x01}},
		{"str32", "need 4294967295 more bytes, have 1) at byte 32", []byte{0xdb, 0xff, 0xff, 0xff, 0xff, 'a'}},
		{"str8", "need 200 more bytes, have 1) at byte 29", []byte{0xd9, 200, 'a'}},
		{"bin32", "need 2147483648 more bytes, have 0) at byte 32", []byte{0xc6, 0x80, 0x00, 0x00, 0x00}},
		{"ext32", "need 4278190081 more bytes, have 1) at byte 32", []byte{0xc9, 0xff, 0x00, 0x00, 0x00, 0x01}},
		{"fixext16", "need 17 more bytes, have 2) at byte 28", []byte{0xd8, 0x01, 0x02}},
		{"truncated", "need 2 more bytes, have 0) at byte 28", []byte{0xcd}},
		{"no value", "unexpected end of data at byte 27", nil},
		{"reserved", "type byte 0xc1 (extension or reserved) is not a JSON value at byte 27", []byte{0xc1}},
		{"deep", "nested deeper than 520 levels", bytes.Repeat([]byte{0x91}, 100000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Envelope
			err := MsgPack.Unmarshal(call(tc.params), &e)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	// What the encoder writes passes the check whole, deadline (a
	// timestamp extension) and all.
	for _, v := range []any{
		&Envelope{V: 1, Kind: KindCall, Call: sampleCall()},
		&Envelope{V: 1, Kind: KindResult, Result: &ToolResult{Value: map[string]any{"s": strings.Repeat("x", 70000), "a": make([]any, 70000)}}},
	} {
		b, err := MsgPack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		n, err := wire.SkipMessage(b, maxMessageDepth)
		if err != nil || n != len(b) {
			t.Fatalf("SkipMessage = %d, %v; want %d, nil", n, err, len(b))
		}
		var e Envelope
		if err := MsgPack.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMsgpackDecoderPanic: the decoder panics on nil for a struct-typed
// field of an array-encoded struct (found by FuzzUnmarshalEnvelope; the
// seed is kept); Unmarshal turns that into an error.
func TestMsgpackDecoderPanic(t *testing.T) {
	msg := []byte("\x83\xa100\xa400000\xa4call\x98\xa200\xc0\xc0\xc0\xc00\xc00")
	var e Envelope
	err := MsgPack.Unmarshal(msg, &e)
	if err == nil || !strings.Contains(err.Error(), "msgpack: malformed message") {
		t.Fatalf("err = %v, want a malformed-message error", err)
	}
}

// TestZeroValuesSurvive: a result of 0, "", false, [] or {} (and error data
// and host-call args of those) is not a null after a round trip. The
// msgpack library's omitempty looks inside an interface and dropped them,
// so a JS worker's tool returning 0 answered null.
func TestZeroValuesSurvive(t *testing.T) {
	zeros := []any{int64(0), "", false, []any{}, map[string]any{}, 0.0}
	for _, c := range []Codec{MsgPack, JSON} {
		for _, z := range zeros {
			if _, ok := z.(float64); ok && c == JSON {
				continue // JSON writes 0.0 as 0, read back as an integer
			}
			for _, in := range []any{
				&ToolResult{CallID: "c", Value: z},
				&ToolResult{CallID: "c", Error: &ToolError{Code: ProviderError, Message: "m", Data: z}},
				&HostCall{Op: "call_tool", Args: z},
				&Envelope{V: 1, Kind: KindResult, ID: "7", Result: &ToolResult{Value: z}},
			} {
				if out := roundTrip(t, c, in); !reflect.DeepEqual(out, in) {
					t.Errorf("%s: %#v came back as %#v", c.Name(), in, out)
				}
			}
		}
	}
}

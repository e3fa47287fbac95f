package abi

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
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
			b, err := c.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			out := reflect.New(reflect.TypeOf(in).Elem()).Interface()
			if err := c.Unmarshal(b, out); err != nil {
				t.Fatalf("%s: %v", c.Name(), err)
			}
			if !reflect.DeepEqual(out, in) {
				t.Fatalf("%s: mismatch\n got %#v\nwant %#v", c.Name(), out, in)
			}
		}
	}
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
		for _, c2 := range []Codec{MsgPack, JSON} {
			if _, err := c2.Marshal(&e); err != nil {
				t.Fatalf("re-encode with %s: %v", c2.Name(), err)
			}
		}
	})
}

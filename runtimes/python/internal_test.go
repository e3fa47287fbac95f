package python

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	mpw "github.com/aios-host/aios-host/guest/go/wire"
)

func frame(payload string) []byte {
	b := make([]byte, 4, 4+len(payload))
	binary.BigEndian.PutUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// FuzzWorkerOutput feeds arbitrary bytes as a worker's output: reading
// envelopes must end in an error or an envelope, never a panic or a hang.
func FuzzWorkerOutput(f *testing.F) {
	f.Add(frame(`{"v":1,"kind":"register","register":{"format":1,"provider":{"id":"a.b"},"tools":[{"name":"x","parameters":{"type":"object"}}]}}`))
	f.Add(frame(`{"v":1,"kind":"result","id":"c1","result":{"call_id":"c1","value":{"a":[1,2.5,"x",null,true]}}}`))
	f.Add(frame(`{"v":1,"kind":"host_call","id":"h1","host":{"call_id":"c1","op":"space_read","args":{"id":"sha256:00"}}}`))
	f.Add(frame(`{"v":1,"kind":"log","log":{"level":"error","message":"x.py:3:1: SyntaxError"}}`))
	f.Add(append(frame(`{"v":1}`), 0, 0, 0, 9, 'g', 'a', 'r'))
	f.Add([]byte("\x00\x00\x00\x07garbage"))
	f.Add([]byte("\xff\xff\xff\xff"))
	f.Add(frame("\x81\xa1v\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w := &worker{br: bufio.NewReader(bytes.NewReader(data))}
		for i := 0; i < 64; i++ {
			env, err := w.readEnvelope()
			if err != nil {
				return
			}
			if env == nil {
				t.Fatal("nil envelope without error")
			}
		}
	})
}

// fakeEnv records host operations.
type fakeEnv struct {
	call *abi.ToolCall
	got  []string
}

func (e *fakeEnv) Call() *abi.ToolCall { return e.call }
func (e *fakeEnv) CallTool(_ context.Context, tool, version string, params any) (any, error) {
	e.got = append(e.got, "call_tool "+tool+" "+version)
	return map[string]any{"echo": params}, nil
}
func (e *fakeEnv) SpaceRead(_ context.Context, space, id string) (abi.Object, error) {
	e.got = append(e.got, "space_read "+space+" "+id)
	return abi.Object{Space: "documents", ID: id, Data: []byte("hi")}, nil
}
func (e *fakeEnv) SpaceWrite(_ context.Context, space string, data []byte) (abi.Object, error) {
	e.got = append(e.got, "space_write "+space+" "+string(data))
	return abi.Object{Space: space, ID: "sha256:x"}, nil
}
func (e *fakeEnv) Complete(_ context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	e.got = append(e.got, "ai_complete "+req.Prompt)
	return abi.CompleteResponse{Text: "done", Model: "m"}, nil
}
func (e *fakeEnv) Logger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestHostOps(t *testing.T) {
	tests := []struct {
		op   string
		args map[string]any
		want any
		code abi.ErrorCode
		rec  string
	}{
		{"call_tool", map[string]any{"tool": "echo", "params": map[string]any{"v": int64(1)}}, map[string]any{"echo": map[string]any{"v": int64(1)}}, "", "call_tool echo "},
		{"call_tool", map[string]any{"tool": "echo", "version": "^1"}, map[string]any{"echo": map[string]any{}}, "", "call_tool echo ^1"},
		{"call_tool", map[string]any{}, nil, abi.InvalidParams, ""},
		{"space_read", map[string]any{"id": "sha256:ab"}, map[string]any{"space": "documents", "id": "sha256:ab", "data": "aGk="}, "", "space_read  sha256:ab"},
		{"space_write", map[string]any{"space": "out", "data": "aGk="}, map[string]any{"space": "out", "id": "sha256:x"}, "", "space_write out hi"},
		{"space_write", map[string]any{"space": "out", "data": "!!"}, nil, abi.InvalidParams, ""},
		{"ai_complete", map[string]any{"prompt": "p", "max_tokens": int64(5)}, map[string]any{"text": "done", "model": "m"}, "", "ai_complete p"},
		{"teleport", nil, nil, abi.InvalidRequest, ""},
	}
	for _, tc := range tests {
		env := &fakeEnv{}
		c := &inflight{id: "c1", ctx: context.Background(), env: env}
		got, err := hostOp(c, &abi.HostCall{CallID: "c1", Op: tc.op, Args: tc.args})
		if tc.code != "" {
			if abi.CodeOf(err) != tc.code {
				t.Errorf("%s %v: want %s, got %v", tc.op, tc.args, tc.code, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v = %#v, %v; want %#v", tc.op, tc.args, got, err, tc.want)
		}
		if len(env.got) != 1 || env.got[0] != tc.rec {
			t.Errorf("%s: env saw %q, want %q", tc.op, env.got, tc.rec)
		}
	}
}

// FuzzHostOp: arbitrary JSON arguments to any op never panic; a refusal
// is InvalidParams or InvalidRequest naming the op, and the environment
// is asked only for an op hostOp accepts.
func FuzzHostOp(f *testing.F) {
	for _, s := range []string{`{"tool":"x","params":[1]}`, `{"id":5}`, `{"data":"@@"}`, `{"max_tokens":"x","temperature":1}`, `null`, `[]`} {
		for _, op := range []string{"call_tool", "space_read", "space_write", "ai_complete", "log", "?"} {
			f.Add(op, s)
		}
	}
	f.Fuzz(func(t *testing.T, op, args string) {
		var v any
		if abi.UnmarshalJSONValue([]byte(args), &v) != nil {
			return
		}
		env := &fakeEnv{}
		c := &inflight{id: "c1", ctx: context.Background(), env: env}
		_, err := hostOp(c, &abi.HostCall{CallID: "c1", Op: op, Args: v})
		if err != nil {
			var te *abi.ToolError
			if !errors.As(err, &te) || (te.Code != abi.InvalidParams && te.Code != abi.InvalidRequest) {
				t.Fatalf("%s %s: refused with %#v, want an InvalidParams or InvalidRequest *abi.ToolError", op, args, err)
			}
			if !strings.HasPrefix(te.Message, op+":") && !strings.Contains(te.Message, strconv.Quote(op)) {
				t.Fatalf("%s %s: the error %q does not name the op", op, args, te.Message)
			}
			if len(env.got) != 0 {
				t.Fatalf("%s %s: refused (%v), yet the environment was asked %q", op, args, err, env.got)
			}
			return
		}
		want := 1
		if op == "log" {
			want = 0
		}
		if len(env.got) != want || (want == 1 && !strings.HasPrefix(env.got[0], op+" ")) {
			t.Fatalf("%s %s: accepted, the environment was asked %q", op, args, env.got)
		}
	})
}

func TestDeriveID(t *testing.T) {
	for in, want := range map[string]string{
		"/x/pdf_tools.py": "local.pdf-tools",
		"/x/My Tool.py":   "local.my-tool",
		"/x/__.py":        "local.provider",
		"/x/a.b.py":       "local.a-b",
	} {
		// The id a file provider that names none gets (checkRegister).
		if got := (abi.Source{Path: in}).LocalID(); got != want {
			t.Errorf("LocalID of %q = %q, want %q", in, got, want)
		}
		if err := abi.ValidateProviderID((abi.Source{Path: in}).LocalID()); err != nil {
			t.Error(err)
		}
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		n    int32
		want time.Duration
	}{{0, 0}, {1, 0}, {2, 50 * time.Millisecond}, {3, 100 * time.Millisecond}, {6, 800 * time.Millisecond}, {9, 5 * time.Second}, {40, 5 * time.Second}} {
		if got := backoff(tc.n); got != tc.want {
			t.Errorf("backoff(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

func TestSpinSkip(t *testing.T) {
	const spin = 50 * time.Microsecond
	for _, tc := range []struct{ misses, want int }{{0, 0}, {1, 0}, {2, 0}, {3, 2}, {4, 4}, {9, 128}, {10, 256}, {50, 256}} {
		if got := spinSkipAfter(tc.misses); got != tc.want {
			t.Errorf("spinSkipAfter(%d) = %d, want %d", tc.misses, got, tc.want)
		}
	}
	for _, tc := range []struct {
		skip   int
		waited time.Duration
		want   int
	}{
		{0, time.Millisecond, 0},         // not skipping
		{10, 20 * time.Microsecond, 10},  // a short wait: the same vCPU, keep skipping
		{10, 25 * time.Microsecond, 10},  // not longer than half a window
		{10, 26 * time.Microsecond, 9},   // a long wake-up: counts twice
		{10, 1999 * time.Microsecond, 9}, //
		{10, 2 * time.Millisecond, 10},   // idle or a slow tool: says nothing
		{1, 500 * time.Microsecond, 0},   //
	} {
		if got := spinSkipAfterWait(tc.skip, spin, tc.waited); got != tc.want {
			t.Errorf("spinSkipAfterWait(%d, %v, %v) = %d, want %d", tc.skip, spin, tc.waited, got, tc.want)
		}
	}
}

// TestSDKParameters checks the SDK's schema rule with the real interpreter.
func TestSDKParameters(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed for the python runtime tests: %v", err)
	}
	dir, err := extractSDK()
	if err != nil {
		t.Fatal(err)
	}
	script := `import sys, json
sys.path.insert(0, sys.argv[1])
from aios_sdk import build_parameters as b, Capability as C
print(json.dumps([
  b({"object_id": {"type": "string"}, "pages": {"type": "string"}}),
  b({"object_id": {"type": "string"}, "max_words": {"type": "integer", "default": 200}}),
  b({"q": {"type": "string", "optional": True}}),
  b({"type": "object", "properties": {"a": {}}, "required": ["a"]}),
  b(None),
  b({"a": {}, "b": {}}, required=["b"]),
  [C.ReadSpace("documents"), C.Inference, C.CallTool("pdf-*"), C.Network("*.example.com")],
]))`
	out, err := exec.Command(py, "-I", "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got []any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []any{
		map[string]any{"type": "object", "properties": map[string]any{"object_id": map[string]any{"type": "string"}, "pages": map[string]any{"type": "string"}}, "required": []any{"object_id", "pages"}},
		map[string]any{"type": "object", "properties": map[string]any{"object_id": map[string]any{"type": "string"}, "max_words": map[string]any{"type": "integer", "default": 200.0}}, "required": []any{"object_id"}},
		map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}},
		map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{}}, "required": []any{"a"}},
		map[string]any{"type": "object"},
		map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{}, "b": map[string]any{}}, "required": []any{"b"}},
		[]any{"ReadSpace(documents)", "Inference", "CallTool(pdf-*)", "Network(*.example.com)"},
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("#%d: got %#v\nwant %#v", i, got[i], want[i])
		}
	}
}

// decodeFrame checks a frame's length prefix and decodes its JSON with
// encoding/json (the reference), normalized.
func decodeFrame(t *testing.T, b []byte) map[string]any {
	t.Helper()
	if len(b) < 4 || int(binary.BigEndian.Uint32(b)) != len(b)-4 {
		t.Fatalf("bad length prefix in %q", b)
	}
	var v any
	if err := abi.UnmarshalJSONValue(b[4:], &v); err != nil {
		t.Fatalf("frame is not JSON: %v: %q", err, b[4:])
	}
	return v.(map[string]any)
}

func TestAppendCallFrame(t *testing.T) {
	deadline := time.Date(2026, 11, 30, 17, 2, 46, 123456789, time.UTC)
	values := []any{
		nil, true, false, int64(0), int64(-9007199254740993), 3.25, 3.0, -0.5, 1e300, 5e-324,
		"", "héllo, 世界 🌍 \"quoted\" \\ \n\t\x01\x7f", "bad \xff utf8",
		[]any{}, []any{int64(1), "two", nil, 3.5, false},
		map[string]any{}, map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": "d"}}}, "": nil},
	}
	for _, v := range values {
		call := &abi.ToolCall{Tool: "echo", Caller: "tester", Depth: 2, ParentID: "p", Version: "^1", Deadline: deadline, Params: map[string]any{"value": v}}
		b, err := appendCallFrame(nil, "id-1", call, 200)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		var env abi.Envelope
		if err := abi.JSON.Unmarshal(b[4:], &env); err != nil {
			t.Fatalf("%#v: not an Envelope: %v", v, err)
		}
		want := v
		if s, ok := v.(string); ok && !utf8.ValidString(s) {
			want = strings.ToValidUTF8(s, "\uFFFD")
		}
		got := env.Call.Params.(map[string]any)["value"]
		if !reflect.DeepEqual(got, want) || env.Kind != abi.KindCall || env.ID != "id-1" || env.Call.ID != "id-1" ||
			env.Call.Tool != "echo" || env.Call.Caller != "tester" || env.Call.Depth != 2 || env.Call.ParentID != "p" ||
			env.Call.Version != "^1" || !env.Call.Deadline.Equal(deadline) {
			t.Errorf("%#v: decoded %#v / %#v", v, got, env.Call)
		}
		if f, ok := v.(float64); ok {
			if _, isFloat := got.(float64); !isFloat {
				t.Errorf("float %v came back as %T", f, got)
			}
		}
	}
	for _, bad := range []any{math.NaN(), math.Inf(1)} {
		if _, err := appendCallFrame(nil, "x", &abi.ToolCall{Tool: "t", Params: map[string]any{"v": bad}}, 0); err == nil {
			t.Errorf("%v encoded without error", bad)
		}
	}
	// Non-canonical params fall back to encoding/json.
	b, err := appendCallFrame(nil, "x", &abi.ToolCall{Tool: "t", Params: struct{ A int }{7}}, 0)
	if err != nil || !reflect.DeepEqual(decodeFrame(t, b)["call"].(map[string]any)["params"], map[string]any{"A": int64(7)}) {
		t.Errorf("struct params: %q, %v", b, err)
	}
	// The spin key: present with a window, absent without.
	for _, spin := range []int64{0, 150} {
		b, err := appendCallFrame(nil, "x", &abi.ToolCall{Tool: "t", Params: map[string]any{}}, spin)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := decodeFrame(t, b)["spin"]
		if (spin == 0 && ok) || (spin != 0 && got != spin) {
			t.Errorf("spin %d: envelope spin = %v (present %v)", spin, got, ok)
		}
	}
}

// TestAppendCallFrameMsgpack: the MessagePack call frame decodes (with the
// reference decoder) to what the JSON frame decodes to, floats staying
// floats and bad UTF-8 becoming U+FFFD byte by byte as in JSON.
func TestAppendCallFrameMsgpack(t *testing.T) {
	deadline := time.Date(2026, 11, 30, 17, 2, 46, 123456789, time.UTC)
	values := []any{
		nil, true, false, int64(0), int64(-9007199254740993), int64(math.MaxInt64), int64(math.MinInt64), 3.25, 3.0, -0.5, 1e300, 5e-324,
		"", "héllo, 世界 🌍 \"quoted\" \\ \n\t\x01\x7f", "bad \xff\xfe utf8 \xe4\xb8",
		[]any{}, []any{int64(1), "two", nil, 3.5, false},
		map[string]any{}, map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": "d"}}}, "": nil, "k\xff": int64(1)},
	}
	for _, v := range values {
		call := &abi.ToolCall{Tool: "echo", Caller: "tester", Depth: 2, ParentID: "p", Version: "^1", Deadline: deadline, Params: map[string]any{"value": v}}
		jb, err := appendCallFrame(nil, "id-1", call, 200)
		if err != nil {
			t.Fatal(err)
		}
		mb, err := appendCallFrameMsgpack(nil, "id-1", call, 200)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		var jv, mv any
		if err := abi.JSON.Unmarshal(jb[4:], &jv); err != nil {
			t.Fatal(err)
		}
		if err := abi.MsgPack.Unmarshal(mb[4:], &mv); err != nil {
			t.Fatalf("%#v: not MessagePack: %v", v, err)
		}
		if int(binary.BigEndian.Uint32(mb)) != len(mb)-4 {
			t.Fatalf("length prefix %d for %d bytes", binary.BigEndian.Uint32(mb), len(mb)-4)
		}
		if !reflect.DeepEqual(jv, mv) {
			t.Errorf("%#v:\n json    %#v\n msgpack %#v", v, jv, mv)
		}
		if f, ok := v.(float64); ok {
			if _, isFloat := mv.(map[string]any)["call"].(map[string]any)["params"].(map[string]any)["value"].(float64); !isFloat {
				t.Errorf("float %v did not stay a float", f)
			}
		}
	}
	for _, bad := range []any{math.NaN(), math.Inf(-1)} {
		if _, err := appendCallFrameMsgpack(nil, "x", &abi.ToolCall{Tool: "t", Params: map[string]any{"v": bad}}, 0); err == nil {
			t.Errorf("%v encoded without error", bad)
		}
	}
	b, err := appendCallFrameMsgpack(nil, "x", &abi.ToolCall{Tool: "t", Params: struct{ A int }{7}}, 0)
	var got map[string]any
	if err != nil || abi.MsgPack.Unmarshal(b[4:], &got) != nil || !reflect.DeepEqual(got["call"].(map[string]any)["params"], map[string]any{"A": int64(7)}) {
		t.Errorf("struct params: %q, %v", b, err)
	}
}

// TestDecodeMsgpackFrame: the fast path and the general decoder agree;
// a value that is not JSON is a valueError naming the call, not a broken
// worker; a broken frame is a protocolError.
func TestDecodeMsgpackFrame(t *testing.T) {
	mp := func(v any) []byte {
		b, err := abi.MsgPack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	res := map[string]any{"v": int64(1), "kind": "result", "id": "c1", "result": map[string]any{"call_id": "c1", "value": map[string]any{"a": []any{int64(1), 2.5, "x", nil, true}}}}
	env, err := decodeMsgpackFrame(mp(res))
	if err != nil || env.Kind != abi.KindResult || env.ID != "c1" || !reflect.DeepEqual(env.Result.Value, map[string]any{"a": []any{int64(1), 2.5, "x", nil, true}}) {
		t.Fatalf("result: %#v, %v", env, err)
	}
	if _, ok, _ := decodeMsgpackResult(mp(res)); !ok {
		t.Fatal("the SDK's result shape missed the fast path")
	}
	// Not JSON inside: bin, NaN, a tuple key (what json.dumps refuses,
	// in its words, naming the dict that holds it).
	for name, frame := range map[string][]byte{
		"bin":       []byte("\x84\xa1v\x01\xa4kind\xa6result\xa2id\xa2c1\xa6result\x82\xa7call_id\xa2c1\xa5value\xc4\x01x"),
		"nan":       []byte("\x84\xa1v\x01\xa4kind\xa6result\xa2id\xa2c1\xa6result\x82\xa7call_id\xa2c1\xa5value\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00"),
		"tuple-key": []byte("\x84\xa1v\x01\xa4kind\xa6result\xa2id\xa2c1\xa6result\x82\xa7call_id\xa2c1\xa5value\x81\x92\x01\x02\xa1a"),
	} {
		_, err := decodeMsgpackFrame(frame)
		var ve *valueError
		if !errors.As(err, &ve) || ve.kind != abi.KindResult || ve.id != "c1" {
			t.Errorf("%s: %v, want a valueError of result c1", name, err)
		}
		if name == "tuple-key" && ve.err.Error() != "keys must be str, int, float, bool or None, not tuple (a key of the dict at $)" {
			t.Errorf("tuple-key: %v", ve.err)
		}
	}
	// Keys json.dumps takes become its strings: None, True, an int, a
	// uint64, a float.
	keys := []byte("\x84\xa1v\x01\xa4kind\xa6result\xa2id\xa2c1\xa6result\x82\xa7call_id\xa2c1\xa5value\x85\xc0\x01\xc3\x02\x01\xa1a\xcf\x80\x00\x00\x00\x00\x00\x00\x00\x03\xcb\x43\x41\xc3\x79\x37\xe0\x80\x00\x04")
	env, err = decodeMsgpackFrame(keys)
	if want := map[string]any{"null": int64(1), "true": int64(2), "1": "a", "9223372036854775808": int64(3), "1e+16": int64(4)}; err != nil || !reflect.DeepEqual(env.Result.Value, want) {
		t.Errorf("keys: %#v, %v", env, err)
	}
	// A host call's arguments likewise (decoded again with the keys
	// converted); a key json.dumps refuses (a tuple) is a valueError.
	host := []byte("\x84\xa1v\x01\xa4kind\xa9host_call\xa2id\xa2h1\xa4host\x83\xa7call_id\xa1c\xa2op\xa9call_tool\xa4args\x81\x01\xa1x")
	if env, err := decodeMsgpackFrame(host); err != nil || env.Host == nil || !reflect.DeepEqual(env.Host.Args, map[string]any{"1": "x"}) {
		t.Errorf("host_call with an integer key: %#v, %v", env, err)
	}
	tupleHost := []byte("\x84\xa1v\x01\xa4kind\xa9host_call\xa2id\xa2h1\xa4host\x83\xa7call_id\xa1c\xa2op\xa9call_tool\xa4args\x81\x92\x01\x02\xa1x")
	var ve *valueError
	if _, err := decodeMsgpackFrame(tupleHost); !errors.As(err, &ve) || ve.kind != abi.KindHostCall || ve.host.Op != "call_tool" {
		t.Errorf("host_call with a tuple key: %v", err)
	}
	var pe *protocolError
	for _, bad := range [][]byte{{0x92, 1}, {0x84, 0xa1}, []byte("{}"), {0xdf, 0xff, 0xff, 0xff, 0xff}} {
		if _, err := decodeMsgpackFrame(bad); !errors.As(err, &pe) {
			t.Errorf("%x: %v, want a protocolError", bad, err)
		}
	}
}

// FuzzWorkerOutputMsgpack is FuzzWorkerOutput for a worker that
// negotiated MessagePack, plus a differential check of the result fast
// path against the reference decoder.
func FuzzWorkerOutputMsgpack(f *testing.F) {
	for _, v := range []any{
		map[string]any{"v": int64(1), "kind": "result", "id": "c1", "result": map[string]any{"call_id": "c1", "value": map[string]any{"a": []any{int64(1), 2.5, "x", nil, true}}}},
		map[string]any{"v": int64(1), "kind": "host_call", "id": "h1", "host": map[string]any{"call_id": "c1", "op": "space_read", "args": map[string]any{"id": "sha256:00"}}},
		map[string]any{"v": int64(1), "kind": "log", "log": map[string]any{"level": "error", "message": "x.py:3:1: SyntaxError"}},
		map[string]any{"v": int64(1), "kind": "register", "register": map[string]any{"format": int64(1), "provider": map[string]any{"id": "a.b"}, "tools": []any{map[string]any{"name": "x"}}}},
	} {
		b, err := abi.MsgPack.Marshal(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append(frame(string(b)), frame(string(b[:len(b)/2]))...))
	}
	f.Add([]byte("\x00\x00\x00\x07garbage"))
	f.Add(frame("\x84\xa1v\x01\xa4kind\xa6result\xa2id\xa2c1\xa6result\x82\xa7call_id\xa2c1\xa5value\x81\x01\xa1a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4 {
			// The value decoder converts what json.dumps would (dict keys
			// that are not strings); where there are none, it decodes as
			// the plain one does.
			conv, cok, _ := decodeMsgpackResult(data[4:])
			env, ok, _ := decodeMsgpackResultWith(data[4:], mpw.Decoder{})
			if ok && (!cok || !reflect.DeepEqual(env, conv)) {
				t.Fatalf("the converting decoder gives %#v, %v; the plain one %#v", conv, cok, env)
			}
			if ok {
				var ref abi.Envelope
				if err := abi.MsgPack.Unmarshal(data[4:], &ref); err != nil {
					t.Fatalf("fast path took what the reference refuses (%v): %x", err, data[4:])
				}
				if !reflect.DeepEqual(env.Result.Value, ref.Result.Value) || env.ID != ref.ID {
					t.Fatalf("fast %#v, reference %#v", env.Result, ref.Result)
				}
			}
		}
		w := &worker{br: bufio.NewReader(bytes.NewReader(data)), mp: true}
		for i := 0; i < 64; i++ {
			env, err := w.readEnvelope()
			if err != nil {
				return
			}
			if env == nil {
				t.Fatal("nil envelope without error")
			}
		}
	})
}

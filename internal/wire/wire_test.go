package wire

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		pref    string
		offered []string
		want    string
		err     string
	}{
		{MsgPack, []string{"msgpack", "json"}, "msgpack", ""},
		{JSON, []string{"msgpack", "json"}, "json", ""},
		{MsgPack, []string{"json"}, "json", ""},
		{JSON, []string{"msgpack"}, "msgpack", ""},
		{JSON, []string{"cbor", "msgpack", "json"}, "json", ""},
		{MsgPack, []string{"cbor", "json"}, "json", ""},
		{MsgPack, []string{"cbor"}, "", `offers the wire formats ["cbor"], none of which this host reads (it reads msgpack and json)`},
	} {
		got, err := Choose("w", c.pref, c.offered)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Choose(%q, %q) = %q, %v; want %q, %q", c.pref, c.offered, got, err, c.want, c.err)
		}
	}
}

func TestParseWorkerHello(t *testing.T) {
	if f, err := ParseWorkerHello("w", WorkerHello([]string{"msgpack", "json"})); err != nil || strings.Join(f, ",") != "msgpack,json" {
		t.Fatalf("own hello: %q, %v", f, err)
	}
	for frame, want := range map[string]string{
		``:                                    "first message is not a JSON hello",
		`garbage`:                             "first message is not a JSON hello (0x67617262616765)",
		`{"v":1,"kind":"register"}`:           `sent a "register" message before its hello`,
		`{"kind":"hello","formats":["json"]}`: "hello has version none",
		`{"v":1,"kind":"hello","formats":[]}`: `no "formats" list of strings`,
		`{"v":1,"kind":"hello","formats":"json"}`: `no "formats" list of strings`,
		`{"v":1,"kind":"hello","formats":[null]}`: ``,
		"\x81\xa1v\x01": "first message is not a JSON hello (0x81a17601)",
		`{"v":1,"kind":"hello"` + strings.Repeat(" ", 300): "… (321 bytes)",
	} {
		_, err := ParseWorkerHello("w", []byte(frame))
		if want == "" {
			continue // null in a []string decodes as ""; Choose skips it
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", frame, err, want)
		}
	}
}

func TestParseHostHello(t *testing.T) {
	if f, err := ParseHostHello(HostHello("json"), []string{"msgpack", "json"}); err != nil || f != "json" {
		t.Fatalf("%q %v", f, err)
	}
	for _, frame := range []string{`{"v":1,"kind":"hello","format":"cbor"}`, `{"v":2,"kind":"hello","format":"json"}`, `{"v":1,"kind":"call"}`, `nope`} {
		if _, err := ParseHostHello([]byte(frame), []string{"msgpack", "json"}); err == nil {
			t.Errorf("%s accepted", frame)
		}
	}
}

func TestCheck(t *testing.T) {
	for in, want := range map[string]string{"": "msgpack", "msgpack": "msgpack", "json": "json"} {
		if got, err := Check("k", in); err != nil || got != want {
			t.Errorf("Check(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := Check("runtimes.js.wire", "JSON"); err == nil || !strings.Contains(err.Error(), `runtimes.js.wire: "JSON" is not a wire format (want msgpack or json)`) {
		t.Errorf("Check(JSON): %v", err)
	}
}

func TestTracer(t *testing.T) {
	var nilTracer *Tracer
	nilTracer.Frame("in", []byte("{}")) // no panic
	if NewTracer(slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), JSON) != nil {
		t.Fatal("a tracer at info level")
	}
	var buf bytes.Buffer
	tr := NewTracer(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), JSON)
	tr.Frame("out", []byte(`{"v":1,"kind":"call","s":"`+strings.Repeat("é", 400)+`"}`))
	tr.Frame("out", []byte(`{"v":1,"kind":"call","s":"x`+strings.Repeat("é", 400)+`"}`))
	tr.Frame("in", []byte{0x81, 0xa1, 'v', 0x01})
	out := buf.String()
	for _, want := range []string{`msg="wire frame" dir=out format=json bytes=828`, `kind\":\"call`, "… (828 bytes)", "… (829 bytes)", `dir=in format=json bytes=4 frame=0x81a17601`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in %s", want, out)
		}
	}
	if strings.Contains(out, "\ufffd") {
		t.Errorf("a character cut in half: %s", out)
	}
}

// A tracer made with format "" names each frame's own (WASM guests choose
// per message).
func TestTracerFormatPerFrame(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTracer(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), "")
	tr.Frame("in", []byte(`{"value":1}`))
	tr.Frame("out", []byte{0x81, 0xa1, 'v', 0x01})
	tr.Frame("out", nil)
	out := buf.String()
	for _, want := range []string{`dir=in format=json bytes=11`, `dir=out format=msgpack bytes=4 frame=0x81a17601`, `dir=out format=msgpack bytes=0`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in %s", want, out)
		}
	}
}

func TestCutText(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"}, // not inside é's two bytes
		{"éé", 3, "é…"},
		{"日本", 0, "…"},
	} {
		if got := CutText(tc.s, tc.n, "…"); got != tc.want {
			t.Errorf("CutText(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

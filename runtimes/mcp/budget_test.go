package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/wire"
)

// bloatResult is a tools/call result of 15 MB, under the go-sdk's 16 MiB
// message limit, whose structuredContent holds 5 million empty objects:
// decoded, that is gigabytes of host memory (wire.CheckCost estimates
// 560 MB).
func bloatResult() []byte {
	const n = 5_000_000
	return []byte(`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":[` + strings.Repeat("{},", n-1) + `{}]}}`)
}

// bigText is the text of bigResult: large, but harmless (2 MiB).
var bigText = strings.Repeat("x", 2<<20)

func bigResult() []byte {
	return []byte(`{"content":[{"type":"text","text":"` + bigText + `"}]}`)
}

// allocDuring returns the bytes the test process allocated while f ran.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkRefused checks that err is the TooLarge of a refused message that
// names the server and the decode budget, and that the bridge logged it.
func checkRefused(t *testing.T, err error, logs *syncBuffer, want string) {
	t.Helper()
	te := abi.AsToolError(err, abi.Internal)
	if err == nil || te.Code != abi.TooLarge || !strings.Contains(te.Message, "mcp server hostile") || !strings.Contains(te.Message, want) {
		t.Fatalf("err = %v, want TooLarge naming the server and %q", err, want)
	}
	if l := logs.String(); !strings.Contains(l, "mcp server message refused before decoding") || !strings.Contains(l, "server=hostile") || !strings.Contains(l, want) {
		t.Fatalf("refusal not logged:\n%s", l)
	}
}

// A stdio server answering with a message that fits the go-sdk's 16 MiB
// but would decode to gigabytes is refused before decoding: the call
// answers TooLarge naming the decode budget, the host allocates a fraction
// of what decoding would have cost, and the bridge restarts the server
// and serves other calls. A large but ordinary answer still passes.
func TestBridgeStdioDecodeBudget(t *testing.T) {
	checkDecodeBudget(t, fakeConfig(t, "hostile"), "a stdout message of 150001", "restarting it")
}

// checkDecodeBudget runs the hostile server of sc: a 2 MiB text result
// passes; the bloated one is refused (its error naming what and again)
// allocating a fraction of what decoding it would; echo works after.
func checkDecodeBudget(t *testing.T, sc ServerConfig, what, again string) {
	t.Helper()
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"hostile": sc})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.hostile")
	v, err := call(t, p, "mcp-hostile-big", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatalf("a 2 MiB text result: %v", err)
	}
	if c, _ := v.(map[string]any)["content"].([]any); len(c) != 1 || c[0].(map[string]any)["text"] != bigText {
		t.Fatalf("big result = %.200v", v)
	}
	alloc := allocDuring(func() {
		_, err = call(t, p, "mcp-hostile-bloat", map[string]any{}, 60*time.Second) // (20 s passed under a CI run's load)
	})
	checkRefused(t, err, logs, "which would decode to more than 256 MiB of host memory (the decode budget, mcp.servers.hostile.decode_budget")
	if !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), again) {
		t.Errorf("err = %v, want %q and %q", err, what, again)
	}
	t.Logf("refusing the message allocated %d MiB", alloc>>20)
	if alloc > 128<<20 {
		t.Errorf("refusing a 15 MB message allocated %d MiB", alloc>>20)
	}
	if v, err := callAfterRestart(t, p, "mcp-hostile-echo", map[string]any{"message": "still here"}); err != nil {
		t.Fatalf("after the refusal: %v", err)
	} else if !strings.Contains(strings.ToLower(jsonString(v)), "still here") {
		t.Fatalf("echo = %v", v)
	}
}

// A stdio message longer than max_message_bytes is refused while it is
// read, not after.
func TestBridgeStdioMaxMessageBytes(t *testing.T) {
	sc := fakeConfig(t, "hostile")
	sc.MaxMessageBytes = 1 << 20
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"hostile": sc})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.hostile")
	_, err = call(t, p, "mcp-hostile-big", map[string]any{}, 20*time.Second)
	checkRefused(t, err, logs, "longer than 1048576 bytes (mcp.servers.hostile.max_message_bytes), after reading 1048576 bytes")
	if _, err := callAfterRestart(t, p, "mcp-hostile-echo", map[string]any{"message": "x"}); err != nil {
		t.Fatalf("after the refusal: %v", err)
	}
}

// callAfterRestart calls tool once the bridge has its server back: a call
// waits for a reconnect at most 5 s, which a loaded machine (a race build
// of the fake server starting) can take longer than.
func callAfterRestart(t *testing.T, p abi.Provider, tool string, params any) (any, error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, err := call(t, p, tool, params, 10*time.Second)
		if abi.CodeOf(err) != abi.Unavailable || time.Now().After(deadline) {
			return v, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hostileHTTP is a streamable-HTTP MCP server written by hand: its tools
// bloat and big answer bloatResult and bigResult (as precomputed bytes, so
// that the server allocates nothing while answering), as one JSON body or
// as an SSE event.
func hostileHTTP(t *testing.T, sse bool) string {
	t.Helper()
	bloat, big := bloatResult(), bigResult()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result []byte
		switch m.Method {
		case "initialize":
			result = []byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1.0.0"}}`)
		case "tools/list":
			result = []byte(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"bloat","inputSchema":{"type":"object"}},{"name":"big","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			switch m.Params.Name {
			case "bloat":
				result = bloat
			case "big":
				result = big
			default:
				msg, _ := json.Marshal("Echo: " + m.Params.Arguments["message"].(string))
				result = []byte(`{"content":[{"type":"text","text":` + string(msg) + `}]}`)
			}
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"no"}}`))
			return
		}
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("event: message\ndata: "))
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":`))
		w.Write(result)
		w.Write([]byte(`}`))
		if sse {
			w.Write([]byte("\n\n"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// Over streamable HTTP a response body (application/json) or SSE event
// (text/event-stream) that would decode past the budget is refused before
// the go-sdk decodes it; the bridge reconnects and serves other calls.
func TestBridgeHTTPDecodeBudget(t *testing.T) {
	for _, tc := range []struct {
		name string
		sse  bool
		what string
	}{{"json", false, "a response body of 150001"}, {"sse", true, "an SSE event of 150001"}} {
		t.Run(tc.name, func(t *testing.T) {
			checkDecodeBudget(t, ServerConfig{URL: hostileHTTP(t, tc.sse), ConnectTimeout: 5 * time.Second}, tc.what, "reconnecting")
		})
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// endless serves prefix and then fill repeated forever, counting the
// bytes.
type endless struct {
	prefix, fill []byte
	i            int
	n            int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.prefix)
	e.prefix = e.prefix[n:]
	for ; n < len(p); n++ {
		p[n] = e.fill[e.i%len(e.fill)]
		e.i++
	}
	e.n += int64(n)
	return n, nil
}

func (e *endless) Close() error { return nil }

// An endless message — a stdio line, a JSON body, an SSE event of one
// line or of many — is refused after max_message_bytes (plus a read
// buffer), never read whole.
func TestBudgetEndlessMessage(t *testing.T) {
	const limit = 1 << 20
	var refusals int
	b := &msgBudget{server: "s", maxBytes: limit, decode: DefaultDecodeBudget, refused: func(*refusedError) { refusals++ }}
	stdio := func(e *endless) io.Reader { return newMessageReader(e, b) }
	body := func(e *endless) io.Reader { return &bodyReader{body: e, b: b} }
	sse := func(e *endless) io.Reader { return newSSEReader(e, b) }
	for _, tc := range []struct {
		name string
		src  *endless
		r    func(*endless) io.Reader
		what string
	}{
		{"stdio string", &endless{prefix: []byte(`{"a":"`), fill: []byte("x")}, stdio, "a stdout message longer than 1048576 bytes"},
		{"stdio lines", &endless{prefix: []byte(`{"a":[`), fill: []byte("{},\n")}, stdio, "a stdout message longer than 1048576 bytes"},
		{"json body", &endless{prefix: []byte(`{"a":"`), fill: []byte("x")}, body, "a response body longer than 1048576 bytes"},
		{"sse line", &endless{prefix: []byte(`data: "x`), fill: []byte("x")}, sse, "an SSE event longer than 1048576 bytes"},
		{"sse lines", &endless{prefix: []byte("data: [\n"), fill: []byte("data: {},\n")}, sse, "an SSE event longer than 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := io.Copy(io.Discard, tc.r(tc.src))
			var re *refusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.what) {
				t.Fatalf("err = %v, want %q", err, tc.what)
			}
			if tc.src.n > limit+64<<10 {
				t.Fatalf("read %d bytes of an endless message", tc.src.n)
			}
		})
	}
	if refusals != 5 {
		t.Errorf("%d refusals reported, want 5", refusals)
	}
}

// The checks pass ordinary traffic on byte for byte, a 4 MiB text too
// (which CheckCost walks: it is past its fast path).
func TestBudgetPassesOrdinaryMessages(t *testing.T) {
	b := &msgBudget{server: "s", maxBytes: DefaultMaxMessageBytes, decode: DefaultDecodeBudget}
	bigText := strings.Repeat("x", 4<<20)
	msgs := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\r\n" +
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + bigText + `"}]}}` + "\n"
	out, err := io.ReadAll(iotest.HalfReader(newMessageReader(strings.NewReader(msgs), b)))
	if err != nil || string(out) != strings.ReplaceAll(msgs, "\r\n", "\n") {
		t.Fatalf("stdio: %v, %d bytes out of %d", err, len(out), len(msgs))
	}
	sse := ": comment\n\nid: 1\nevent: message\ndata: {\"a\":\r\ndata:  1}\r\n\r\nretry: 10\ndata: " + bigText + "\n\ndata: {}"
	out, err = io.ReadAll(iotest.HalfReader(newSSEReader(io.NopCloser(strings.NewReader(sse)), b)))
	if err != nil || string(out) != sse {
		t.Fatalf("sse: %v, %d bytes out of %d", err, len(out), len(sse))
	}
	out, err = io.ReadAll(&bodyReader{body: io.NopCloser(strings.NewReader(msgs)), b: b})
	if err != nil || string(out) != msgs {
		t.Fatalf("body: %v, %d bytes out of %d", err, len(out), len(msgs))
	}
}

// The decode budget is the server's decode_budget: a message that would
// pass the default is refused under a smaller one, on every path.
func TestBudgetConfigured(t *testing.T) {
	var msg bytes.Buffer
	msg.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"a":[`)
	for i := range 100_000 {
		if i > 0 {
			msg.WriteByte(',')
		}
		msg.WriteString("null")
	}
	msg.WriteString("]}}")
	for _, decode := range []int64{DefaultDecodeBudget, 1 << 20} {
		b := &msgBudget{server: "s", maxBytes: DefaultMaxMessageBytes, decode: decode}
		_, err1 := io.ReadAll(newMessageReader(bytes.NewReader(append(msg.Bytes(), '\n')), b))
		_, err2 := io.ReadAll(&bodyReader{body: io.NopCloser(bytes.NewReader(msg.Bytes())), b: b})
		_, err3 := io.ReadAll(newSSEReader(io.NopCloser(bytes.NewReader(append([]byte("data: "), msg.Bytes()...))), b))
		for i, err := range []error{err1, err2, err3} {
			if refused := err != nil; refused != (decode < DefaultDecodeBudget) {
				t.Errorf("decode budget %d, path %d: err = %v", decode, i, err)
			} else if refused && !strings.Contains(err.Error(), "more than 1 MiB of host memory (the decode budget, mcp.servers.s.decode_budget") {
				t.Errorf("path %d: err = %v", i, err)
			}
		}
	}
}

// sdkValues reads JSON values from r the way the go-sdk's stdio
// connection does (encoding/json's Decoder; a value must be followed by a
// newline or CR when more input is buffered).
func sdkValues(r io.Reader) ([][]byte, error) {
	dec := json.NewDecoder(r)
	var out [][]byte
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out, err
		}
		var tr [1]byte
		if n, _ := dec.Buffered().Read(tr[:]); n > 0 && tr[0] != '\n' && tr[0] != '\r' {
			return out, errors.New("invalid trailing data")
		}
		out = append(out, raw)
	}
}

// FuzzMessageReader: whatever a stdio server writes, the go-sdk reading
// the messageReader's output only ever decodes values the check passed
// (within max_message_bytes and the decode budget), each one a value of
// the server's output in order; and output written as the MCP stdio
// transport says (one value a line) passes whole.
func FuzzMessageReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n[{},{},{}]\n"))
	f.Add([]byte("{\"a\":\n1}\n{} {}\n"))
	f.Add([]byte("  {\"a\":\"\\\"}\"}\r\n\"x\"\n12\n"))
	f.Add([]byte("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n[{\"jsonrpc\":\"2.0\",\"method\":\"m\"}]\n"))
	f.Add([]byte("\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit, decode = 256, 1 << 10
		b := &msgBudget{server: "s", maxBytes: limit, decode: decode}
		got, _ := sdkValues(newMessageReader(iotest.OneByteReader(bytes.NewReader(data)), b))
		// The values in data, with no rule about what follows them (the
		// go-sdk's rule depends on what its decoder has buffered).
		// An answer without an id is dropped (TestStdioAnswerWithoutIDKeepsSession).
		var want [][]byte
		// A byte order mark at the start is skipped (TestStdioServerBOMAccepted).
		dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
		var wantErr error
		for {
			var raw json.RawMessage
			if wantErr = dec.Decode(&raw); wantErr != nil {
				break
			}
			if !fuzzAnswerWithoutID(raw) {
				want = append(want, raw)
			}
		}
		// Lines that are no JSON-RPC message are skipped and the reader
		// goes on (TestStrayStdoutLinesSkipped): each value passed is one
		// of the server's output, in order, naming "jsonrpc".
		at := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		for i, v := range got {
			j := bytes.Index(at, v)
			if j < 0 && !fuzzMendedAnswer(v) {
				t.Fatalf("value %d: %q through the check is not in what the server wrote after the values before it", i, v)
			}
			if j >= 0 {
				at = at[j+len(v):]
			}
			if len(v) > limit || wire.CheckJSONCost(v, decode, typedObjectCost) != nil || !bytes.Contains(v, []byte(`"jsonrpc"`)) {
				t.Fatalf("value %d (%d bytes) passed the check: %q", i, len(v), v)
			}
		}
		// Where the values were all read (no error but the end), those
		// named "jsonrpc" all passed.
		if errors.Is(wantErr, io.EOF) {
			var named [][]byte
			for _, v := range want {
				if bytes.Contains(v, []byte(`"jsonrpc"`)) && len(v) <= limit && wire.CheckJSONCost(v, decode, typedObjectCost) == nil {
					named = append(named, v)
				}
			}
			if len(got) > len(named) {
				t.Fatalf("the go-sdk read %d values through the check, %d are there", len(got), len(named))
			}
		}
		// One value a line, each within the limits and naming "jsonrpc"
		// (a value that does not, a JSON log line, is refused saying what
		// the server wrote: TestJSONLogOnStdoutSaysSo): everything passes.
		canonical := errors.Is(wantErr, io.EOF)
		var lines bytes.Buffer
		for _, v := range want {
			// (Those dropped are not in want.)
			var c bytes.Buffer
			if json.Compact(&c, v) != nil || c.Len() > limit-1 || wire.CheckJSONCost(c.Bytes(), decode, typedObjectCost) != nil ||
				!bytes.Contains(c.Bytes(), []byte(`"jsonrpc"`)) {
				canonical = false
				break
			}
			lines.Write(c.Bytes())
			lines.WriteByte('\n')
		}
		if canonical {
			out, err := io.ReadAll(newMessageReader(bytes.NewReader(lines.Bytes()), b))
			if err != nil || !bytes.Equal(out, lines.Bytes()) {
				t.Fatalf("one value a line: %v, %q out of %q", err, out, lines.Bytes())
			}
			// And with lines that are not JSON-RPC messages between them
			// (text, a JSON log line, a broken value), the same.
			var junk bytes.Buffer
			for _, l := range bytes.SplitAfter(lines.Bytes(), []byte("\n")) {
				if len(l) == 0 {
					continue // (the end: a value broken by it is not skipped)
				}
				junk.WriteString("starting up...\n{\"level\":\"info\"}\n[1, 2\n")
				junk.Write(l)
			}
			out, err = io.ReadAll(newMessageReader(iotest.OneByteReader(bytes.NewReader(junk.Bytes())), b))
			if err != nil || !bytes.Equal(out, lines.Bytes()) {
				t.Fatalf("one value a line, with lines of other text between: %v, %q out of %q", err, out, junk.Bytes())
			}
		}
	})
}

// fuzzMendedAnswer says whether v can be an answer the reader mended
// (msgBudget.mend: a result's structuredContent carried as text, an answer
// with neither a result nor an error made an error answer), which is not
// in the server's output as it is: a JSON-RPC answer.
func fuzzMendedAnswer(v []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(v, &m) == nil && string(m["jsonrpc"]) == `"2.0"` && m["method"] == nil && (m["result"] != nil || m["error"] != nil)
}

// fuzzAnswerWithoutID says whether v is a JSON-RPC answer (a result or
// an error, no method) whose id is null, missing, or neither a string nor
// a number.
func fuzzAnswerWithoutID(v []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil || m["jsonrpc"] == nil || m["method"] != nil || m["result"] == nil && m["error"] == nil {
		return false
	}
	var id any
	if json.Unmarshal(m["id"], &id) != nil {
		return true
	}
	switch id.(type) {
	case string, float64:
		return false
	}
	return true
}

// sseData is the data of each event of an SSE stream as the go-sdk's
// scanEventsLimited reads it (lines end at "\n", trailing CRs and LFs are
// trimmed, an empty line or the end ends an event, data values are
// trimmed of spaces and joined with "\n"), but reading on past a malformed
// line, which the go-sdk stops at.
func sseData(b []byte) [][]byte {
	var out [][]byte
	var data []byte
	has := false
	lines := bytes.SplitAfter(b, []byte("\n"))
	for _, l := range lines {
		t := bytes.TrimRight(l, "\r\n")
		if len(t) == 0 {
			if has {
				out = append(out, data)
			}
			data, has = nil, false
			continue
		}
		if name, v, ok := bytes.Cut(t, []byte(":")); ok && string(name) == "data" {
			if has {
				data = append(data, '\n')
			}
			data, has = append(data, bytes.TrimSpace(v)...), true
		}
	}
	if has {
		out = append(out, data)
	}
	return out
}

// FuzzSSEReader: the sseReader passes a stream on byte for byte, however
// it is read, unless an event's data (as the go-sdk would decode it) is
// past the decode budget or an event past max_message_bytes; then it
// refuses, and what it passed before is whole events.
func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("data: {}\n\n"))
	f.Add([]byte("event: message\r\nid: 3\r\ndata: [{},\r\ndata: {}]\r\n\r\n: c\n\ndata:[]"))
	f.Add([]byte("data: [{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]\n\ndata: 1\n"))
	f.Add([]byte("id: \"\ndata: [{},{},{},{},{},{},{},{},{},{},{}]\n\n"))
	f.Add([]byte("data: \"\xc2\xa0\ndata: {}\xc2\x85\n\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		const limit, decode = 512, 1 << 10
		b := &msgBudget{server: "s", maxBytes: limit, decode: decode}
		out, err := io.ReadAll(newSSEReader(io.NopCloser(iotest.OneByteReader(bytes.NewReader(stream))), b))
		whole, err2 := io.ReadAll(newSSEReader(io.NopCloser(bytes.NewReader(stream)), b))
		if !bytes.Equal(out, whole) || (err == nil) != (err2 == nil) {
			t.Fatalf("read a byte at a time: %q, %v; at once: %q, %v", out, err, whole, err2)
		}
		over := false
		for _, d := range sseData(stream) {
			if wire.CheckJSONCost(d, decode, typedObjectCost) != nil {
				over = true
			}
		}
		if over && err == nil {
			t.Fatalf("data past the decode budget passed: %q", stream)
		}
		if err == nil {
			if !bytes.Equal(out, stream) {
				t.Fatalf("passed %q of %q", out, stream)
			}
			return
		}
		var re *refusedError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v", err)
		}
		if !bytes.HasPrefix(stream, out) {
			t.Fatalf("passed %q, not a prefix of %q", out, stream)
		}
		for _, d := range sseData(out) {
			if wire.CheckJSONCost(d, decode, typedObjectCost) != nil {
				t.Fatalf("passed data past the budget: %q", d)
			}
		}
		if re.cost == nil && len(stream) <= limit {
			t.Fatalf("refused a %d-byte stream as too long", len(stream))
		}
	})
}

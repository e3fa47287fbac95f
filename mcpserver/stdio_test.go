package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// FuzzStdioLines feeds arbitrary client bytes to the stdio line filter:
// it never panics, passes on only JSON-RPC messages (a batch only of
// requests), and answers every other non-blank line with one JSON-RPC
// error or an array of them.
func FuzzStdioLines(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"garbage\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n",
		"[]\n[1,2]\n\n   \n",
		`{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`,
		"\xff\xfe\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"a","result":{}}]` + "\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n",
		`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}},7]` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		j := &jsonLines{r: bufio.NewReaderSize(bytes.NewReader(data), 64<<10), w: &lockedWriter{w: &out}, st: newStdioState()}
		passed, err := io.ReadAll(j)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(passed), "\n"), "\n") {
			if l == "" {
				continue
			}
			if !strings.HasPrefix(l, "[") {
				if _, err := jsonrpc.DecodeMessage([]byte(l)); err != nil {
					t.Fatalf("passed %q: %v", l, err)
				}
				continue
			}
			var batch []json.RawMessage
			if err := json.Unmarshal([]byte(l), &batch); err != nil || len(batch) == 0 {
				t.Fatalf("passed batch %q", l)
			}
			for _, e := range batch {
				m, err := jsonrpc.DecodeMessage(e)
				if r, ok := m.(*jsonrpc.Request); err != nil || !ok || !r.IsCall() || r.Method == "initialize" {
					t.Fatalf("passed batch %q with element %s (%v)", l, e, err)
				}
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l == "" {
				continue
			}
			answers := []json.RawMessage{json.RawMessage(l)}
			if strings.HasPrefix(l, "[") {
				if err := json.Unmarshal([]byte(l), &answers); err != nil || len(answers) == 0 {
					t.Fatalf("answer %q", l)
				}
			}
			for _, a := range answers {
				var m struct {
					Error *struct{ Code int64 } `json:"error"`
				}
				if json.Unmarshal(a, &m) != nil || m.Error == nil {
					t.Fatalf("answer %q is not a JSON-RPC error", l)
				}
			}
		}
	})
}

// stdioSession serves s over StdioTransport on pipes: send writes a line,
// read returns the next line the server writes.
type stdioSession struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func newStdioSession(t *testing.T, s *Server) *stdioSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	ss := &stdioSession{t: t, in: inW, lines: make(chan string, 64), done: make(chan error, 1)}
	go func() { ss.done <- s.Run(ctx, StdioTransport(inR, outW)); outW.Close() }()
	go func() {
		r := bufio.NewReader(outR)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(ss.lines)
				return
			}
			ss.lines <- strings.TrimSpace(l)
		}
	}()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close() })
	return ss
}

func (ss *stdioSession) send(line string) {
	ss.t.Helper()
	if _, err := io.WriteString(ss.in, line+"\n"); err != nil {
		ss.t.Fatalf("send %s: %v (the session ended?)", line, err)
	}
}

// read returns the next line the server writes, "" after d without one.
func (ss *stdioSession) read(d time.Duration) string {
	ss.t.Helper()
	select {
	case l, ok := <-ss.lines:
		if !ok {
			ss.t.Fatalf("the session ended: %v", <-ss.done)
		}
		return l
	case <-time.After(d):
		return ""
	}
}

func (ss *stdioSession) mustRead() string {
	ss.t.Helper()
	l := ss.read(30 * time.Second) // generous: a loaded machine
	if l == "" {
		ss.t.Fatal("no answer")
	}
	return l
}

func (ss *stdioSession) initialize(version string) {
	ss.t.Helper()
	ss.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if l := ss.mustRead(); !strings.Contains(l, `"protocolVersion":"`+version+`"`) {
		ss.t.Fatalf("initialize: %s", l)
	}
	ss.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// ping checks the session still serves.
func (ss *stdioSession) ping(id int) {
	ss.t.Helper()
	ss.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"ping"}`)
	if l := ss.mustRead(); l != `{"jsonrpc":"2.0","id":`+itoa(id)+`,"result":{}}` {
		ss.t.Fatalf("ping %d: %s", id, l)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// errorsOf decodes an answer line (one response or an array) into id →
// error code (0 for a result), ids as JSON text.
func errorsOf(t *testing.T, line string) map[string]int64 {
	t.Helper()
	var rs []struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if !strings.HasPrefix(line, "[") {
		line = "[" + line + "]"
	}
	if err := json.Unmarshal([]byte(line), &rs); err != nil {
		t.Fatalf("answer %s: %v", line, err)
	}
	m := map[string]int64{}
	for _, r := range rs {
		c := int64(0)
		if r.Error != nil {
			c = r.Error.Code
		}
		m[string(r.ID)] = c
	}
	return m
}

// TestStdioBatchAfter20250618 sends batches to sessions of 2025-06-18 and
// later: each is refused with -32600 for every request, and the session
// keeps serving (the go-sdk alone ends the session).
func TestStdioBatchAfter20250618(t *testing.T) {
	_, s := newTestHost(t, "")
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			ss := newStdioSession(t, s)
			ss.initialize(version)
			ss.send(`[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]`)
			if got := errorsOf(t, ss.mustRead()); len(got) != 2 || got["8"] != jsonrpc.CodeInvalidRequest || got["9"] != jsonrpc.CodeInvalidRequest {
				t.Fatalf("batch answered %v", got)
			}
			ss.send(`[1,2]`)
			l := ss.mustRead()
			var arr []json.RawMessage
			if json.Unmarshal([]byte(l), &arr) != nil || len(arr) != 2 || fmt.Sprint(errorsOf(t, l)) != "map[null:-32600]" {
				t.Fatalf("[1,2] answered %s", l)
			}
			// Only notifications: nothing to answer, nothing done.
			ss.send(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
			ss.ping(10)
		})
	}
}

// TestStdioBatch20250326 serves batches of a 2025-03-26 session: a valid
// one (notifications included) is answered as one array; an invalid one
// is refused with -32600 per element (id null for what is not a JSON-RPC
// message); the session keeps serving.
func TestStdioBatch20250326(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-03-26")
	ss.send(`[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"value":1}}}]`)
	l := ss.mustRead()
	if got := errorsOf(t, l); len(got) != 2 || got["8"] != 0 || got["9"] != 0 || !strings.Contains(l, `{\"value\":1}`) {
		t.Fatalf("batch answered %s", l)
	}
	for _, tc := range []struct{ line, want string }{
		{`[1,2]`, `{"null":-32600}`},
		{`[{"jsonrpc":"2.0","id":11,"method":"ping"},{"foo":1}]`, `{"11":-32600,"null":-32600}`},
		{`[{"jsonrpc":"2.0","id":12,"method":"ping"},{"jsonrpc":"2.0","id":12,"method":"ping"}]`, `{"12":-32600}`},
		{`[{"jsonrpc":"2.0","id":13,"method":"initialize","params":{}}]`, `{"13":-32600}`},
		{`[]`, `{"null":-32600}`},
	} {
		ss.send(tc.line)
		got, _ := json.Marshal(errorsOf(t, ss.mustRead()))
		if string(got) != tc.want {
			t.Errorf("%s answered %s, want %s", tc.line, got, tc.want)
		}
	}
	ss.ping(14)
}

// TestStdioBatchBeforeInitializeAnswer: a batch that arrives before
// initialize is answered is refused (the session's version is not known
// yet), and the session goes on.
func TestStdioBatchBeforeInitializeAnswer(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n" +
		`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`)
	var init, batch string
	for range 2 {
		l := ss.mustRead()
		if strings.HasPrefix(l, "[") {
			batch = l
		} else {
			init = l
		}
	}
	if !strings.Contains(init, `"protocolVersion":"2025-06-18"`) || errorsOf(t, batch)["8"] != jsonrpc.CodeInvalidRequest {
		t.Fatalf("initialize %s, batch %s", init, batch)
	}
	ss.ping(9)
}

// TestStdioErrorCodes: what the go-sdk answers with code 0 gets a
// standard code.
func TestStdioErrorCodes(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if got := errorsOf(t, ss.mustRead()); got["1"] != jsonrpc.CodeInvalidRequest {
		t.Errorf("request before initialize: %v", got)
	}
	ss.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"p","version":"1"}}}`)
	if got := errorsOf(t, ss.mustRead()); got["2"] != jsonrpc.CodeInvalidParams {
		t.Errorf("protocolVersion 5: %v", got)
	}
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}`)
	if got := errorsOf(t, ss.mustRead()); got["3"] != jsonrpc.CodeInvalidRequest {
		t.Errorf("second initialize: %v", got)
	}
	ss.send(`{"jsonrpc":"2.0","id":4,"method":"nope"}`)
	if got := errorsOf(t, ss.mustRead()); got["4"] != jsonrpc.CodeMethodNotFound {
		t.Errorf("unknown method: %v", got)
	}
}

// TestStdioCancelledRequestGetsNoResponse: after notifications/cancelled
// the server does not answer the request (MCP: the receiver SHOULD NOT
// respond); other requests are answered as before.
func TestStdioCancelledRequestGetsNoResponse(t *testing.T) {
	h, s := newTestHost(t, "")
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "slow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow not exported")
		}
	}
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	ss.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"user"}}`)
	if l := ss.read(500 * time.Millisecond); l != "" {
		t.Fatalf("the cancelled request was answered: %s", l)
	}
	ss.ping(5)
	// A cancellation of a request already answered changes nothing.
	ss.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	ss.ping(6)
}

// addSlowTool registers the exportable tool "slow", which signals started
// and runs until its call is cancelled.
func addSlowTool(t testing.TB, h *host.Host, started chan<- struct{}) {
	t.Helper()
	p := native.New(abi.ProviderInfo{ID: "org.test.slow"})
	p.MustRegister(abi.ToolDef{Name: "slow", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			select {
			case started <- struct{}{}:
			default:
			}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
}

package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestRPCCallLongerThanWriteTimeout: POST /rpc sets a write deadline
// of server.write_timeout as it starts (for its refusals) and again once
// the answer is ready; a call that runs past the first still gets its
// answer (write_timeout bounds writing it, not the call) (no defect).
func TestRPCCallLongerThanWriteTimeout(t *testing.T) {
	ts := newTestServer(t, "  write_timeout: 20ms\n", true)
	release, started := make(chan struct{}), make(chan struct{})
	p := native.New(abi.ProviderInfo{ID: "org.test.slow", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "probe_slow", Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			close(started)
			<-release
			return "done", nil
		})
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe_slow"}}`)
		got <- fmt.Sprintf("%d %s", status, body)
	}()
	// The first deadline passes while the call runs (waiting longer
	// only makes it surer).
	<-started
	time.Sleep(60 * time.Millisecond)
	close(release)
	if b := <-got; !strings.HasPrefix(b, "200 ") || !strings.Contains(b, `"done"`) {
		t.Fatalf("a call longer than write_timeout: %s", b)
	}
}

// TestRPCSlowReaderGetsWholeAnswer: an answer "that makes no
// progress for write_timeout is given up" (docs/discovery.md), but POST
// /rpc wrote its answer in one write under one deadline, write_timeout
// from when it was ready: a client reading steadily but slowly — a
// 512 KB answer (16 MB may be allowed: limits.max_result_bytes) over a link
// that needs more than write_timeout for it — lost its connection midway
// though it never stopped reading. The deadline is now renewed as the
// answer makes progress (each 32 KB).
func TestRPCSlowReaderGetsWholeAnswer(t *testing.T) {
	ts := newTestServer(t, "  write_timeout: 500ms\n", false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.s.ServeHTTPListener(smallSendBuffers{ln})
	const n = 512 << 10
	addBigTool(t, ts, n)
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(32 << 10) // (smaller, and TCP itself would be slower than the reader)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`
	fmt.Fprintf(conn, "POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", testToken, len(body), body)
	// Read at n bytes per 1.5 s: three times write_timeout for the
	// whole answer, but a few KB every few milliseconds.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start, rate := time.Now(), float64(n)/1.5 // bytes a second
	var got int
	buf := make([]byte, 4<<10)
	for {
		m, err := conn.Read(buf)
		got += m
		if err != nil || bytes.Contains(buf[:m], []byte(`"}`)) {
			break
		}
		time.Sleep(time.Until(start.Add(time.Duration(float64(got) / rate * float64(time.Second)))))
	}
	if got < n {
		t.Fatalf("a client reading its %d-byte answer slowly but steadily got %d bytes before the server gave up", n, got)
	}
}

// TestSocketSlowReaderGetsWholeAnswer: on the socket too, "a peer
// that stops reading is dropped by server.write_timeout", but an answer
// was written in one write under one deadline: a peer reading a large
// answer slowly but steadily was dropped midway. The deadline is renewed
// each 32 KB written.
func TestSocketSlowReaderGetsWholeAnswer(t *testing.T) {
	ts := newTestServer(t, "  write_timeout: 500ms\n", false)
	const n = 512 << 10
	addBigTool(t, ts, n)
	srvEnd, conn := net.Pipe() // (a write waits for the reader: no buffer)
	go ts.s.ServeConn(srvEnd, "cli")
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	// Read at n bytes per 1.5 s: three times write_timeout for the
	// whole answer, but a few KB every few milliseconds.
	start, rate := time.Now(), float64(n)/1.5
	var got int
	buf := make([]byte, 4<<10)
	for got < n {
		m, err := conn.Read(buf)
		got += m
		if err != nil {
			break
		}
		time.Sleep(time.Until(start.Add(time.Duration(float64(got) / rate * float64(time.Second)))))
	}
	if got < n {
		t.Fatalf("a peer reading its %d-byte answer slowly but steadily got %d bytes before the server dropped it", n, got)
	}
}

package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// TestConnAnswerNotJSONFailsTheCall: a server on a socket (a tcp:// or
// unix:// remote adapter, a proxy before it) that answers a line that is
// not JSON-RPC (an HTML error page, a banner) had the line skipped and the
// call wait for an answer to its deadline, then fail with "the call's
// deadline passed before it answered": the connection fails at once,
// naming what the server sent.
func TestConnAnswerNotJSONFailsTheCall(t *testing.T) {
	for _, line := range []string{"<html>502 Bad Gateway</html>", `"just a string"`, `[1,2]`} {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			r := bufio.NewReader(server)
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
			_, _ = server.Write([]byte("\n" + line + "\n")) // (a blank line is skipped)
			_, _ = r.ReadString('\n')                       // hold the connection open
		}()
		c := NewConnClient(client)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := c.Call(ctx, "tools/call", map[string]any{"name": "x"}, nil)
		cancel()
		c.Close()
		if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "not a JSON-RPC message") ||
			!strings.Contains(err.Error(), strings.Trim(line, `"[]`)) {
			t.Fatalf("answer line %s: %v; want the call failed naming the line that is not a JSON-RPC message", line, err)
		}
	}
}

// TestConnAnswerNotResponseFailsTheCall: an object line that does not
// decode as a JSON-RPC response ("error": "boom", a string where an
// object belongs) was skipped as the non-JSON lines were, the call
// waiting to its deadline; it fails the connection at once, saying what
// is wrong with the answer.
func TestConnAnswerNotResponseFailsTheCall(t *testing.T) {
	client, server := net.Pipe()
	go func() {
		defer server.Close()
		r := bufio.NewReader(server)
		req, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var probe struct{ ID json.RawMessage }
		_ = json.Unmarshal(req, &probe)
		_, _ = server.Write([]byte(`{"jsonrpc":"2.0","id":` + string(probe.ID) + `,"error":"boom"}` + "\n"))
		_, _ = r.ReadString('\n') // hold the connection open
	}()
	c := NewConnClient(client)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := c.Call(ctx, "tools/call", map[string]any{"name": "x"}, nil)
	if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "not a JSON-RPC message") ||
		!strings.Contains(err.Error(), "a JSON string at error, where an object is wanted") || strings.Contains(err.Error(), "Go ") {
		t.Logf("%v", err)
		t.Fatalf("answer with \"error\": \"boom\": %v; want the call failed saying error is a string where an object is wanted", err)
	}
}

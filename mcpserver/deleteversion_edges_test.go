package mcpserver

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A DELETE the session does not end — its MCP-Protocol-Version is one the
// server does not speak (the go-sdk answers 400), or another version than
// the session negotiated (refused 400, as a GET or POST of the session is)
// — cancelled the session's calls in flight all the same: the client got
// 400, its session lived on, and its calls answered "the MCP client ended
// its session (HTTP DELETE)".
func TestRefusedDeleteLeavesCallsRunning(t *testing.T) {
	s, base := anonHTTP(t, "")
	defer s.Close() // ends the call before the test server closes
	started := make(chan struct{}, 1)
	addSlowTool(t, s.h, started)
	waitExported(t, s, "slow")
	sid := initSession(t, base) // 2025-06-18
	h := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
	answered := make(chan httpAnswer, 1)
	go func() {
		answered <- post(t, base, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, h)
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool did not start")
	}
	del := func(version string) (int, string) {
		req, _ := http.NewRequest(http.MethodDelete, base+Path, nil)
		req.Header.Set(sessionHeader, sid)
		if version != "" {
			req.Header.Set(versionHeader, version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, b.String()
	}
	running := func() int {
		s.sessMu.Lock()
		defer s.sessMu.Unlock()
		return len(s.sessCalls[sid])
	}
	for _, v := range []string{"1999-01-01", "2025-03-26"} {
		st, body := del(v)
		if st != http.StatusBadRequest {
			t.Errorf("DELETE with %s %q: %d %q, want 400", versionHeader, v, st, body)
		}
		if n := running(); n != 1 {
			t.Fatalf("after the DELETE with %s %q (answered %d %q) the session runs %d calls, want its 1 call still running", versionHeader, v, st, body, n)
		}
		select {
		case a := <-answered:
			t.Fatalf("the call ended after a DELETE refused %d: %s", st, a.body)
		default:
		}
	}
	if a := post(t, base, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, h); a.status != http.StatusOK {
		t.Fatalf("ping on the session after the refused DELETEs: %d %s", a.status, a.body)
	}
	if st, body := del("2025-06-18"); st != http.StatusNoContent {
		t.Fatalf("DELETE: %d %q", st, body)
	}
	select {
	case <-answered: // (a session that ends receives no answer)
		if n := running(); n != 0 {
			t.Errorf("after the DELETE the session runs %d calls", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end with its session's DELETE")
	}
}

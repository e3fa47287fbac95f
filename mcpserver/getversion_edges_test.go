package mcpserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A GET or DELETE of a session whose MCP-Protocol-Version the server does
// not speak was refused with the go-sdk's words, "Unsupported protocol
// version (supported versions: 2026-07-28,…)": the header's value not
// named, and the session-less 2026-07-28 listed, which a session refuses.
// It says what a POST's refusal says (TestUnsupportedVersionHeaderSaysWhich).
func TestUnsupportedVersionHeaderOnGETAndDELETE(t *testing.T) {
	_, base := anonHTTP(t, "")
	sid := initSession(t, base)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, base+Path, nil)
		req.Header.Set(sessionHeader, sid)
		req.Header.Set(versionHeader, "1999-01-01")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		body := string(b)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s with version 1999-01-01: %d %q, want 400", method, resp.StatusCode, body)
		}
		if !strings.Contains(body, "1999-01-01") || strings.Contains(body, sessionlessVersion) || !strings.Contains(body, "2025-11-25") || !strings.Contains(body, versionHeader) {
			t.Errorf("%s with version 1999-01-01: %q, want the header and its value named and only versions a session can use (not %s)", method, body, sessionlessVersion)
		}
	}
	// The session is still there (the DELETE was refused).
	if a := post(t, base, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}); a.status != http.StatusOK {
		t.Fatalf("ping after the refused DELETE: %d %s", a.status, a.body)
	}
}

package mcpserver

import (
	"net/http"
	"strings"
	"testing"
)

// A session id is no credential: another user (another subject, or the
// same subject under another agent's scope) can neither call, read the
// stream of, nor end a session it did not open.
func TestSessionOfAnotherUser(t *testing.T) {
	is := newIssuer(t)
	_, base := newHTTPServer(t, is, "")
	owner := map[string]string{"Authorization": "Bearer " + is.tokenFor(t, "alice", "aios.tools")}
	a := post(t, base, initBody, owner)
	sid := a.header.Get(sessionHeader)
	if a.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", a.status, a.body)
	}
	owner[sessionHeader], owner[versionHeader] = sid, "2025-06-18"
	if a := post(t, base, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, owner); a.status != 202 {
		t.Fatalf("initialized: %d %s", a.status, a.body)
	}
	for _, who := range []struct{ name, sub, scope string }{{"mallory", "mallory", "aios.tools"}, {"alice as admin", "alice", "aios.admin"}} {
		h := map[string]string{"Authorization": "Bearer " + is.tokenFor(t, who.sub, who.scope), sessionHeader: sid, versionHeader: "2025-06-18"}
		if a := post(t, base, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, h); a.status != http.StatusForbidden {
			t.Errorf("%s: tools/list on alice's session: %d %s, want 403", who.name, a.status, a.body)
		}
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			req, _ := http.NewRequest(method, base+Path, nil)
			req.Header.Set("Accept", "text/event-stream")
			for k, v := range h {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s: %s of alice's session: %d, want 403", who.name, method, resp.StatusCode)
			}
		}
	}
	if a := post(t, base, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, owner); a.status != 200 || !strings.Contains(a.body, `"tools"`) {
		t.Errorf("the owner's session after the others' attempts: %d %s", a.status, a.body)
	}
}

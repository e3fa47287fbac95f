package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallerCannotClaimAnotherAgent: an HTTP peer whose token maps
// to agent peer tries to act as cli, which holds ReadSpace(*): a caller
// member in tools/call's params, in _meta, an agent header, a parent_id
// naming one of cli's calls. None of them changes who calls: the members
// are refused as unknown (-32602, nothing run), the header is ignored, and
// the tool that needs cli's grant stays refused to peer; every record
// written names peer and its token, and the parent_id is filed as the
// client's own ("client:…"), not as a call of the host.
func TestCallerCannotClaimAnotherAgent(t *testing.T) {
	ts := newTestServer(t, "audit: {}\n", true)
	post := func(body string, hdr map[string]string) string {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.url+"/rpc", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for _, params := range []string{
		`{"name":"secret","caller":"cli"}`,
		`{"name":"secret","Caller":"cli"}`,
		`{"name":"secret","_meta":{"caller":"cli","agent":"cli"}}`,
		`{"name":"secret","agent":"cli"}`,
	} {
		got := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}`, nil)
		if !strings.Contains(got, `"code":-32602`) {
			t.Errorf("params %s: %s; want -32602, the member refused", params, got)
		}
	}
	for _, hdr := range []map[string]string{{"X-Aios-Agent": "cli"}, {"X-Aios-Caller": "cli", "X-Forwarded-User": "cli"}} {
		got := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret","parent_id":"cli-call-1"}}`, hdr)
		if !strings.Contains(got, "CapabilityDenied") || !strings.Contains(got, `"peer"`) {
			t.Errorf("headers %v: %s; want CapabilityDenied naming peer", hdr, got)
		}
	}
	if err := ts.h.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(ts.dir, "data", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct{ Caller, Principal, Tool, Outcome, ParentID string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		_ = json.Unmarshal(sc.Bytes(), &raw)
		r.ParentID, _ = raw["parent_id"].(string)
		n++
		if r.Caller != "peer" || r.Principal != "token:peer#0" || r.Tool != "secret" || r.Outcome != "CapabilityDenied" || r.ParentID != ClientParentPrefix+"cli-call-1" {
			t.Errorf("record %d: caller %q principal %q tool %q outcome %q parent %q; want peer token:peer#0 secret CapabilityDenied client:cli-call-1", n, r.Caller, r.Principal, r.Tool, r.Outcome, r.ParentID)
		}
	}
	if n != 2 {
		t.Errorf("%d records, want 2 (the refused members run nothing)", n)
	}
}

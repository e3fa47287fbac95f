package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/space"
)

// newSpaceHost is newTestHost with a Space store and an audit log.
func newSpaceHost(t *testing.T, yamlCfg string) (*host.Host, *Server) {
	t.Helper()
	return newTestHostWith(t, yamlCfg, func(o *host.Options) {
		st, err := space.Open(o.Config.SpacesDir())
		if err != nil {
			t.Fatal(err)
		}
		aw, err := audit.Open(o.Config.AuditPath(), audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		o.Spaces, o.Audit = st, aw
	})
}

const resourcesConfig = `agents:
  mcp:
    grants: ["CallTool(*)", "ReadSpace(docs)", "ReadSpace(a-b)"]
    rate: {per_second: 0.001, burst: 3}
`

// TestSpaceResources: the Space objects of the spaces the client's agent
// may read are its resources; a read is checked, rate limited and
// audited; objects of other spaces are neither listed nor readable.
func TestSpaceResources(t *testing.T) {
	h, s := newSpaceHost(t, resourcesConfig)
	put := func(space, data string) string {
		id, err := h.Spaces().Put(space, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	doc := put("docs", "hello, resources")
	bin := put("docs", "\x00\x01\x02binary")
	ab := put("a-b", "in a-b")
	secret := put("secret", "not for mcp")
	cs := connectInMemory(t, s, nil)
	ctx := context.Background()
	if ir := cs.InitializeResult(); ir.Capabilities.Resources == nil {
		t.Fatalf("capabilities %+v lack resources", ir.Capabilities)
	}

	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	want := []string{"aios-space://a-b/" + ab}
	for _, id := range sortedIDs(doc, bin) {
		want = append(want, "aios-space://docs/"+id)
	}
	if strings.Join(uris, " ") != strings.Join(want, " ") {
		t.Fatalf("resources = %v, want %v", uris, want)
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != "aios-space://{space}/{+id}" {
		t.Fatalf("templates = %+v %v", tl, err)
	}

	r, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "aios-space://docs/" + doc})
	if err != nil || len(r.Contents) != 1 || r.Contents[0].Text != "hello, resources" || !strings.HasPrefix(r.Contents[0].MIMEType, "text/plain") {
		t.Fatalf("read text = %+v %v", r, err)
	}
	// The id percent-encoded, as a simple {id} expansion writes it.
	r, err = cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "aios-space://docs/" + strings.Replace(bin, ":", "%3A", 1)})
	if err != nil || len(r.Contents) != 1 || string(r.Contents[0].Blob) != "\x00\x01\x02binary" || r.Contents[0].Text != "" {
		t.Fatalf("read blob = %+v %v", r, err)
	}

	for _, tc := range []struct {
		uri  string
		code int64
		want string
	}{
		{"aios-space://secret/" + secret, -32000, `CapabilityDenied: agent "mcp" may not read space "secret": it lacks ReadSpace(secret)`},
		{"aios-space://docs/" + secret, jsonrpc.CodeInvalidParams, "Resource not found"},
		{"aios-space://docs/nothash", jsonrpc.CodeInvalidParams, "nothash"},
		{"aios-space://docs", jsonrpc.CodeInvalidParams, "want aios-space://<space>/<object id>"},
		{"aios-space://docs/" + doc, -32000, "RateLimited"}, // a burst of 3: two reads and the one of an object not found took it
	} {
		_, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: tc.uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != tc.code || !strings.Contains(we.Message, tc.want) {
			t.Errorf("read %s: %v, want code %d with %q", tc.uri, err, tc.code, tc.want)
		}
	}

	// Every read has its record, denied ones too.
	_ = cs.Close()
	_ = s.Close()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for _, rec := range auditRecords(t, h) {
		if rec["tool"] == host.SpaceReadTool {
			if rec["caller"] != "mcp" {
				t.Errorf("record %v: caller", rec)
			}
			outcomes = append(outcomes, rec["outcome"].(string))
		}
	}
	if got := strings.Join(outcomes, " "); got != "ok ok CapabilityDenied NotFound InvalidParams RateLimited" {
		t.Errorf("audit outcomes of reads: %s", got)
	}
}

// TestSpaceResourcesPerAgent: an HTTP client acting as viewer (here the
// anonymous agent) sees viewer's spaces; a stdio client, as mcp, which
// holds no ReadSpace, sees none and may read none.
func TestSpaceResourcesPerAgent(t *testing.T) {
	h, s := newSpaceHost(t, `agents:
  mcp: {grants: ["CallTool(*)"]}
  viewer: {grants: ["ReadSpace(docs)"]}
mcp:
  http: {anonymous_agent: viewer}
`)
	id, err := h.Spaces().Put("docs", []byte("for viewer"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ctx := context.Background()
	hc, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: srv.URL + Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	l, err := hc.ListResources(ctx, nil)
	if err != nil || len(l.Resources) != 1 || l.Resources[0].URI != "aios-space://docs/"+id || l.CacheScope != "private" {
		t.Fatalf("viewer's list: %+v %v", l, err)
	}
	if r, err := hc.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: l.Resources[0].URI}); err != nil || r.Contents[0].Text != "for viewer" {
		t.Fatalf("viewer's read: %+v %v", r, err)
	}
	cs := connectInMemory(t, s, nil)
	if l, err := cs.ListResources(ctx, nil); err != nil || len(l.Resources) != 0 {
		t.Fatalf("mcp's list: %+v %v", l, err)
	}
	if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "aios-space://docs/" + id}); err == nil || !strings.Contains(err.Error(), "lacks ReadSpace(docs)") {
		t.Fatalf("mcp's read: %v", err)
	}
}

// TestSpaceResourcesPaging: more objects than a page; the pages, followed
// by their cursors, give every object once, in order.
func TestSpaceResourcesPaging(t *testing.T) {
	h, s := newSpaceHost(t, resourcesConfig)
	n := resourcePage + 7
	seen := map[string]bool{}
	for i := range n {
		id, err := h.Spaces().Put("docs", []byte(strings.Repeat("x", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		seen["aios-space://docs/"+id] = false
	}
	cs := connectInMemory(t, s, nil)
	ctx := context.Background()
	first, err := cs.ListResources(ctx, nil)
	if err != nil || len(first.Resources) != resourcePage || first.NextCursor == "" {
		t.Fatalf("first page: %d resources, cursor %q, %v", len(first.Resources), first.NextCursor, err)
	}
	last := ""
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if r.URI <= last {
			t.Fatalf("%s after %s", r.URI, last)
		}
		last = r.URI
		if done, ok := seen[r.URI]; !ok || done {
			t.Fatalf("%s: listed %v, known %v", r.URI, done, ok)
		}
		seen[r.URI] = true
	}
	for u, done := range seen {
		if !done {
			t.Errorf("%s never listed", u)
		}
	}
	if _, err := cs.ListResources(ctx, &mcpsdk.ListResourcesParams{Cursor: "%%%"}); err == nil {
		t.Error("a cursor that is not one was taken")
	}
}

// TestSpaceResourcesOff: mcp.resources: false serves none (no
// capability, and the aios-space URIs are not found).
func TestSpaceResourcesOff(t *testing.T) {
	h, s := newSpaceHost(t, resourcesConfig+"mcp:\n  resources: false\n")
	id, err := h.Spaces().Put("docs", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	cs := connectInMemory(t, s, nil)
	if ir := cs.InitializeResult(); ir.Capabilities.Resources != nil {
		t.Fatalf("capabilities %+v", ir.Capabilities)
	}
	if _, err := cs.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: "aios-space://docs/" + id}); err == nil {
		t.Fatal("read served with resources off")
	}
}

func sortedIDs(ids ...string) []string {
	if ids[0] > ids[1] {
		ids[0], ids[1] = ids[1], ids[0]
	}
	return ids
}

// auditRecords reads the host's audit log.
func auditRecords(t *testing.T, h *host.Host) []map[string]any {
	t.Helper()
	f, err := os.Open(h.Config().AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

package mcpserver

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/space"
)

// FuzzSpaceResource: a client names a Space object by URI
// (resources/read) and pages the list with a cursor (resources/list),
// both untrusted strings. Whatever it sends, it reads only objects of the
// spaces its agent may read, and a URI that reads reads the object it
// names.
func FuzzSpaceResource(f *testing.F) {
	h, s := newTestHostWith(f, `agents:
  mcp:
    grants: ["CallTool(*)", "ReadSpace(docs)", "ReadSpace(a-b)"]
`, func(o *host.Options) {
		st, err := space.Open(o.Config.SpacesDir())
		if err != nil {
			f.Fatal(err)
		}
		o.Spaces = st
	})
	objects := map[string]string{} // URI → data
	put := func(sp, data string) string {
		id, err := h.Spaces().Put(sp, []byte(data))
		if err != nil {
			f.Fatal(err)
		}
		objects[spaceURI(sp, id)] = data
		return id
	}
	doc := put("docs", "hello")
	ab := put("a-b", "in a-b")
	secret, err := h.Spaces().Put("secret", []byte("not for mcp"))
	if err != nil {
		f.Fatal(err)
	}
	for _, u := range []string{
		spaceURI("docs", doc), spaceURI("a-b", ab), spaceURI("secret", secret), spaceURI("docs", secret),
		"aios-space://docs/" + strings.Replace(doc, ":", "%3A", 1), "aios-space://docs%2F..%2Fsecret/" + secret,
		"aios-space://../secret/" + secret, "aios-space://docs/../secret/" + secret, "aios-space://docs/%zz", "aios-space://",
	} {
		f.Add(u, "")
	}
	f.Add("", base64.RawURLEncoding.EncodeToString([]byte(spaceURI("a-b", ab))))
	f.Add("", "YWlvcy1zcGFjZTovL2RvY3Mv") // aios-space://docs/
	f.Add("", "/////")
	ctx := context.Background()
	if r, err := s.readSpaceResource(ctx, "mcp", spaceURI("docs", doc)); err != nil || r.Contents[0].Text != "hello" {
		f.Fatalf("the agent cannot read its own space: %v", err)
	}
	f.Fuzz(func(t *testing.T, uri, cursor string) {
		if r, err := s.readSpaceResource(ctx, "mcp", uri); err == nil {
			sp, id, perr := parseSpaceURI(uri)
			want, ok := objects[spaceURI(sp, id)]
			if perr != nil || !ok || len(r.Contents) != 1 || r.Contents[0].Text+string(r.Contents[0].Blob) != want {
				t.Fatalf("read %q: %+v (want %q, known %v)", uri, r.Contents, want, ok)
			}
		}
		l, err := s.listSpaceResources("mcp", cursor)
		if err != nil {
			return
		}
		for _, r := range l.Resources {
			if _, ok := objects[r.URI]; !ok {
				t.Fatalf("cursor %q listed %q", cursor, r.URI)
			}
		}
	})
}

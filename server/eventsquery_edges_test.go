package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// GET /events read its query with URL.Query, which drops a pair it cannot
// parse without a word: ?events=removed;added (a semicolon, which Go no
// longer takes for a separator) or ?event%ZZ=added (a broken escape)
// streamed every event, the filter or the unknown parameter, which
// docs/discovery.md says is refused, gone. A query that does not parse is
// refused 400, naming what is wrong.
func TestEventsMalformedQueryRefused(t *testing.T) {
	ts := newTestServer(t, "", true)
	c := &http.Client{Timeout: 30 * time.Second}
	for _, q := range []string{"events=removed;added", "events=%zz", "event%ZZ=added", "events=added&x=%zz"} {
		req, _ := http.NewRequest(http.MethodGet, ts.url+"/events?"+q, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "query") || !strings.Contains(string(b), "-32602") {
			t.Errorf("GET /events?%s: %d %s; want 400 saying the query does not parse", q, resp.StatusCode, b)
		}
	}
}

package server

import (
	"net/http/httptest"
	"sync"
	"testing"
)

// One Metrics may serve several servers (attach): a scrape of /metrics
// while another server attaches read the server the metrics describe as
// that server was being set (a data race, caught by -race).
func TestMetricsSharedScrapeWhileAttaching(t *testing.T) {
	ts := newTestServer(t, "", false)
	m := ts.s.Metrics()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			rec := httptest.NewRecorder()
			m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			if rec.Code != 200 {
				t.Errorf("GET /metrics: %d", rec.Code)
				return
			}
		}
	}()
	for range 20 {
		s, err := New(Options{Host: ts.h, Discovery: ts.d, Metrics: m})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}

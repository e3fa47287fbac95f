package server

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestZeroServerIsErrorNotPanic: a zero Server (declared, not made with
// New) panicked in Close, ListenHTTP, ListenUnix and Handler with a nil
// pointer dereference in the embedder's goroutine, where a zero host.Host
// and mcpserver.Server answer that they were not made with New (found by
// p172). Listen* say so, Close is nil, Handler answers 500 saying so.
func TestZeroServerIsErrorNotPanic(t *testing.T) {
	var s Server
	if err := s.ListenUnix(filepath.Join(t.TempDir(), "h.sock")); err == nil || !strings.Contains(err.Error(), "not made with server.New") {
		t.Fatalf("ListenUnix of a zero Server: %v", err)
	}
	if _, err := s.ListenHTTP("127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "not made with server.New") {
		t.Fatalf("ListenHTTP of a zero Server: %v", err)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health", nil))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "not made with server.New") {
		t.Fatalf("Handler of a zero Server: %d %q", rec.Code, rec.Body.String())
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close of a zero Server: %v", err)
	}
}

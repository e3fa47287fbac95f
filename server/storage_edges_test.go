package server

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// TestMetricsAuditFailing: while the audit log could not be written
// (a full disk) the host refused every call and /health said degraded,
// but GET /metrics, what an operator's alerting scrapes, had nothing to
// say it but Unavailable errors of a tool "unknown". It now has the gauge
// aios_audit_log_failing, 1 while the log fails and 0 once it is written
// again.
func TestMetricsAuditFailing(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	aw, err := audit.Open(filepath.Join(dir, "audit.jsonl"), audit.Options{WriteFault: func(f *os.File, b []byte) (int, error) {
		if full.Load() {
			return 0, syscall.ENOSPC
		}
		return f.Write(b)
	}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: config.Default(), Audit: aw})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if err := h.AddProvider(context.Background(), nativeProvider("org.test.native", ""), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Host: h})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	metric := func() string {
		t.Helper()
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.RemoteAddr = "127.0.0.1:5000"
		r.Host = "127.0.0.1:7700" // the local user (TestMetricsLoopbackNotRebound)
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, r)
		for _, l := range strings.Split(w.Body.String(), "\n") {
			if strings.HasPrefix(l, "aios_audit_log_failing ") {
				return l
			}
		}
		t.Fatalf("no aios_audit_log_failing in /metrics (HTTP %d)", w.Code)
		return ""
	}
	if got := metric(); got != "aios_audit_log_failing 0" {
		t.Fatalf("before: %q", got)
	}
	full.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for h.AuditFailing() == nil {
		_, _ = h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "echo", Params: map[string]any{"value": 1}})
		if time.Now().After(deadline) {
			t.Fatal("the audit writer never failed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := metric(); got != "aios_audit_log_failing 1" {
		t.Fatalf("while the log fails: %q", got)
	}
	full.Store(false)
	for h.AuditFailing() != nil {
		if time.Now().After(deadline) {
			t.Fatal("the audit writer never recovered")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := metric(); got != "aios_audit_log_failing 0" {
		t.Fatalf("after: %q", got)
	}
}

package host

import (
	"context"
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
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestCallsRefusedWhileAuditFails: while the audit log cannot be written
// (a full disk), calls are refused with Unavailable instead of running
// without their record; once it can, calls run again and every record of
// a call that ran is in the log.
func TestCallsRefusedWhileAuditFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	var full atomic.Bool
	aw, err := audit.Open(path, audit.Options{WriteFault: func(f *os.File, b []byte) (int, error) {
		if full.Load() {
			return 0, syscall.ENOSPC
		}
		return f.Write(b)
	}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Config: config.Default(), Audit: aw})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var ran atomic.Int64
	p := native.New(abi.ProviderInfo{ID: "org.test.counted"})
	p.MustRegister(abi.ToolDef{Name: "counted"}, func(context.Context, any, abi.Env) (any, error) { ran.Add(1); return "ok", nil })
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	call := func() error {
		_, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "counted"})
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	full.Store(true)
	// The record of this call is held (the write fails); the next calls
	// are refused once the writer has seen the failure.
	_ = call()
	deadline := time.Now().Add(10 * time.Second)
	for h.AuditFailing() == nil {
		if time.Now().After(deadline) {
			t.Fatal("AuditFailing stayed nil")
		}
		time.Sleep(5 * time.Millisecond)
	}
	before := ran.Load()
	err = call()
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "audit log") {
		t.Fatalf("call while the log fails: %v, want Unavailable naming the audit log", err)
	}
	if ran.Load() != before {
		t.Fatal("the tool ran while its record could not be written")
	}
	full.Store(false)
	for h.AuditFailing() != nil {
		if time.Now().After(deadline) {
			t.Fatal("AuditFailing stayed set after the disk had room")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := call(); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := audit.Verify(f); err != nil || int64(n) != ran.Load() {
		t.Fatalf("Verify: %d records, %v; the tool ran %d times", n, err, ran.Load())
	}
}

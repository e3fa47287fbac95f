package conformance

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// newPipelineBenchHost is the host the pipeline benchmarks of every
// runtime share: the agent "bench" with CallTool(*) and a per-caller rate
// limit, a global rate limit (both high enough never to refuse, so their
// cost is measured), a 10 s default deadline and, with withAudit, an audit
// log in a file. Host.Close (at cleanup) closes the audit log too.
func newPipelineBenchHost(b *testing.B, withAudit bool) *host.Host {
	b.Helper()
	dir := b.TempDir()
	cfg := config.Default()
	cfg.Data = dir
	cfg.Agents = map[string]config.Agent{"bench": {Grants: []string{"CallTool(*)"}, Rate: &config.Rate{PerSecond: 1e12, Burst: 1 << 30}}}
	cfg.Limits.DefaultDeadline = 10 * time.Second
	cfg.RateLimits.Global = &config.Rate{PerSecond: 1e12, Burst: 1 << 30}
	var aw *audit.Writer
	if withAudit {
		var err error
		if aw, err = audit.Open(filepath.Join(dir, "audit.jsonl"), audit.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	h, err := host.New(host.Options{Config: cfg, Audit: aw})
	if err != nil {
		_ = aw.Close()
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	registerBenchAudit(b, aw)
	return h
}

// benchAudits maps a running benchmark to its host's audit writer, so that
// wasmCPU can wait for the writer before it stops the timer.
var benchAudits sync.Map // *testing.B → *audit.Writer

// registerBenchAudit records aw as t's audit writer when t is a benchmark.
func registerBenchAudit(t testing.TB, aw *audit.Writer) {
	if b, ok := t.(*testing.B); ok && aw != nil {
		benchAudits.Store(b, aw)
		b.Cleanup(func() { benchAudits.Delete(b) })
	}
}

// syncBenchAudit waits until b's audit writer has encoded and written
// every record logged so far (Flush: the fsyncs every 4096 records happen
// during the run, but the latency of a last fsync is not a call's work).
// Without it a benchmark of N calls stops its timer with up to the
// writer's queue (8192 records) still to be hashed and written, and a
// short -benchtime Nx run undercounts the audit log's cost.
func syncBenchAudit(b *testing.B) {
	if w, ok := benchAudits.Load(b); ok {
		if err := w.(*audit.Writer).Flush(); err != nil {
			b.Fatal(err)
		}
	}
}

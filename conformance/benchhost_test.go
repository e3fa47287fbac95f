package conformance

import (
	"path/filepath"
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
	return h
}

//go:build unix

package python_test

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestIdleWorkerDeathReplaced: a worker killed while idle (kill -9 by an
// operator, the OOM killer, a thread of a tool calling os._exit after the
// call) was logged, but it stayed in the pool until the next call found it
// dead: meanwhile the aios_provider_pool metric counted it idle and
// WorkerPIDs listed its pid, and the next caller waited for a worker to
// start (found by p131: both workers of a pool of two killed, the metric
// said 2 idle, the next call took 1.4 s). It is dropped and replaced at
// once, as a worker that ends in a call is.
func TestIdleWorkerDeathReplaced(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	p := loadTool(t, h, "idlekill.py", `from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}
`)
	stillServes(t, h, "loading")
	pp := p.(*python.Provider)
	ps, _ := host.PoolStatsOf(p)
	pids := pp.WorkerPIDs()
	if len(pids) != 1 {
		t.Fatalf("worker pids %v, want one", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		now := pp.WorkerPIDs()
		idle, busy := ps.PoolStats()
		if len(now) == 1 && now[0] != pids[0] && idle == 1 && busy == 0 {
			if _, err := os.Stat("/proc/" + strconv.Itoa(now[0])); err != nil {
				t.Fatalf("replacement worker %d is not running: %v", now[0], err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the idle worker %d was killed: workers %v, pool idle %d busy %d; want one new worker, idle", pids[0], now, idle, busy)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stillServes(t, h, "the idle worker's death")
}

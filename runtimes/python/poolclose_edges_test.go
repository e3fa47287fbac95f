package python_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A call waiting for a free worker (the pool full) when its provider closed
// (a hot reload, RemoveProvider, the host shutting down) waited on until its
// deadline and then failed Timeout "waiting for a free python worker (all 1
// of … busy; runtimes.python.pool_size)", though no worker would ever come:
// Close woke no waiter. It ends at once, Unavailable naming the tool and
// saying its provider was closed.
func TestCallWaitingForWorkerEndsAtClose(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	p := loadTool(t, h, "queued.py", "import time\nfrom aios_sdk import tool\n@tool(name='slow')\ndef slow(p):\n    time.sleep(p.get('s', 0))\n    return 1\n")
	running := make(chan error, 1)
	go func() {
		_, err := call(h, "slow", map[string]any{"s": 30}, 60*time.Second)
		running <- err
	}()
	pp := p.(*python.Provider)
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, busy := pp.PoolStats(); busy == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the first call never took the worker")
		}
	}
	queued := make(chan error, 1)
	go func() {
		_, err := call(h, "slow", map[string]any{}, 60*time.Second)
		queued <- err
	}()
	time.Sleep(500 * time.Millisecond) // the second call waits for the worker
	_ = p.Close()
	for _, c := range []chan error{running, queued} {
		select {
		case err := <-c:
			if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "tool slow") || !strings.Contains(err.Error(), "closed") {
				t.Errorf("a call at Close: %v, want Unavailable naming the tool and saying its provider was closed", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a call waiting for a worker at Close had not returned 20 s later")
		}
	}
}

// A call starting a worker for itself (the pool had room) when its provider
// closed waited for the worker's whole import (up to
// runtimes.python.startup_timeout) before it failed, holding Host.Close,
// which gives up on calls after 5 s and drops their audit records; a
// replacement being started was stopped at once. The start is stopped at
// Close, and the call ends Unavailable naming the tool.
func TestCallStartingWorkerEndsAtClose(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 2; c.StartupTimeout = 60 * time.Second })
	h := newHost(t, rt)
	// Workers started once the test has set the file's time back (after
	// the load: not a time window, which a loaded machine's load missed)
	// import for 60 s.
	path := writeTool(t, "slowstart.py", "import os, time\nfrom aios_sdk import tool\nif os.stat(__file__).st_mtime < 1e6:\n    time.sleep(60)\n@tool(name='slow')\ndef slow(p):\n    time.sleep(p.get('s', 0))\n    return 1\n")
	p, err := h.LoadFile(context.Background(), path, host.ProviderMeta{Source: "slowstart.py", Trust: abi.System})
	if err != nil {
		t.Fatalf("loading slowstart.py: %v", err)
	}
	if err := os.Chtimes(path, time.Unix(1000, 0), time.Unix(1000, 0)); err != nil {
		t.Fatal(err)
	}
	running := make(chan error, 1)
	go func() {
		_, err := call(h, "slow", map[string]any{"s": 30}, 120*time.Second)
		running <- err
	}()
	pp := p.(*python.Provider)
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, busy := pp.PoolStats(); busy == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the first call never took the worker")
		}
	}
	starting := make(chan error, 1)
	go func() {
		_, err := call(h, "slow", map[string]any{}, 120*time.Second)
		starting <- err
	}()
	time.Sleep(time.Second) // the second call starts a worker, which imports for 60 s
	_ = p.Close()
	for _, c := range []chan error{running, starting} {
		select {
		case err := <-c:
			if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "tool slow") || !strings.Contains(err.Error(), "closed") {
				t.Errorf("a call at Close: %v, want Unavailable naming the tool and saying its provider was closed", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a call starting a worker at Close had not returned 20 s later")
		}
	}
}

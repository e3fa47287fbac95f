package mcp

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBridgeStartsWithInitialize: the first request the bridge sends is
// initialize (MCP lifecycle: nothing but pings before it is answered), so
// a server that leaves unknown requests unanswered — server/discover, say —
// connects at once instead of after connect_timeout.
func TestBridgeStartsWithInitialize(t *testing.T) {
	sc := fakeConfig(t, "ignoreunknown")
	sc.ConnectTimeout = 5 * time.Second
	start := time.Now()
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"fake": sc})
	if err != nil {
		t.Fatalf("Start: %v\n%s", err, logs.String())
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("connected after %v", d)
	}
	if got := rec.toolNames("org.aios.mcp.fake"); !contains(got, "mcp-fake-echo") {
		t.Fatalf("tools = %v", got)
	}
	first := ""
	for _, l := range strings.Split(logs.String(), "\n") {
		if _, m, ok := strings.Cut(l, "fake: received "); ok {
			first = strings.Trim(m, `"`)
			break
		}
	}
	if first != "initialize" {
		t.Fatalf("first request = %q, want initialize\n%s", first, logs.String())
	}
}

// TestBridgeHungServerKilledOnClose: a stdio server that hangs at start-up
// (never reads stdin, ignores SIGTERM, has a child process) makes Start
// warn that it did not finish initialize within connect_timeout, and
// closing its provider kills it and its child, waiting for them.
func TestBridgeHungServerKilledOnClose(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	pidfile := filepath.Join(t.TempDir(), "pids")
	sc := fakeConfig(t, "hang")
	sc.Env["AIOS_MCP_FAKE_PIDFILE"] = pidfile
	sc.ConnectTimeout = 300 * time.Millisecond
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"fake": sc})
	if err == nil || !strings.Contains(err.Error(), "mcp server fake") || !strings.Contains(err.Error(), "did not finish initialize within connect_timeout") {
		t.Fatalf("Start error = %v", err)
	}
	if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "did not finish initialize within connect_timeout") || !strings.Contains(l, "server=fake") {
		t.Fatalf("no warning naming the server:\n%s", l)
	}
	pids := readPids(t, pidfile, 2)
	start := time.Now()
	if err := rec.provider("org.aios.mcp.fake").Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > stopWait {
		t.Fatalf("Close took %v", d)
	}
	// Every process it started, in every attempt, is gone (a child
	// reparented to init may linger as a zombie for a moment).
	deadline := time.Now().Add(2 * time.Second)
	for _, pid := range readPids(t, pidfile, 2) {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d (of %v, first attempt %v) outlived Close", pid, readPids(t, pidfile, 0), pids)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// readPids waits until pidfile holds at least n pids and returns them.
func readPids(t *testing.T, pidfile string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // (10 s passed under a CI run's load)
	for {
		b, _ := os.ReadFile(pidfile)
		var pids []int
		for _, f := range bytes.Fields(b) {
			if p, err := strconv.Atoi(string(f)); err == nil {
				pids = append(pids, p)
			}
		}
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("pids = %v, want %d", pids, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive says whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

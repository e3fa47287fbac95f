package python_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/python"
)

// prober tries what the sandbox should refuse and reports what happened.
const prober = `import os, socket, resource, time
from aios_sdk import Agent, Capability, tool

def attempt(fn):
    try:
        return {"ok": True, "value": fn(), "error": ""}
    except Exception as e:
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}

@Agent(id="org.test.sandbox", capabilities=CAPS)
class Prober:
    @tool(name="ok")
    def ok(self, params):
        return {"ok": True}

    @tool(name="connect", parameters={"port": {"type": "integer"}})
    def connect(self, params):
        def go():
            s = socket.create_connection(("127.0.0.1", params["port"]), timeout=3)
            s.close()
            return "connected"
        return attempt(go)

    @tool(name="connect-to", parameters={"host": {"type": "string"}, "port": {"type": "integer"}})
    def connect_to(self, params):
        def go():
            s = socket.create_connection((params["host"], params["port"]), timeout=3)
            s.sendall(b"hi")
            s.close()
            return "connected"
        return attempt(go)

    @tool(name="raw-socket", parameters={"host": {"type": "string"}, "port": {"type": "integer"}})
    def raw_socket(self, params):
        def go():
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(3)
            s.connect((params["host"], params["port"]))
            s.close()
            return "connected"
        return attempt(go)

    @tool(name="read", parameters={"path": {"type": "string"}})
    def read(self, params):
        def go():
            with open(params["path"], "rb") as f:
                return len(f.read(100))
        return attempt(go)

    @tool(name="write", parameters={"path": {"type": "string"}})
    def write(self, params):
        def go():
            with open(params["path"], "w") as f:
                f.write("x")
            return "written"
        return attempt(go)

    @tool(name="env")
    def env(self, params):
        return {"env": sorted(os.environ)}

    @tool(name="signal-host", parameters={"pid": {"type": "integer", "default": 0}})
    def signal_host(self, params):
        return attempt(lambda: os.kill(params.get("pid") or os.getppid(), 0))

    @tool(name="fork-orphan", parameters={"path": {"type": "string"}})
    def fork_orphan(self, params):
        # A child that leaves the worker's process group and outlives it.
        pid = os.fork()
        if pid == 0:
            os.setsid()
            time.sleep(600)
            os._exit(0)
        return {"ok": True, "pid": pid}

    @tool(name="sethostname")
    def sethostname(self, params):
        return attempt(lambda: socket.sethostname(socket.gethostname()))

    @tool(name="raise-limit")
    def raise_limit(self, params):
        return attempt(lambda: resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY)))
`

func proberSource(caps string) string { return strings.Replace(prober, "CAPS", caps, 1) }

// listener counts connections on 127.0.0.1.
func listener(t *testing.T) (port int, accepted *atomic.Int32) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	accepted = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, accepted
}

func attempt(t *testing.T, p abi.Provider, tool string, params map[string]any) map[string]any {
	t.Helper()
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c-" + tool, Tool: tool, Params: params}, nil)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return v.(map[string]any)
}

func TestSandbox(t *testing.T) {
	t.Setenv("AIOS_TEST_SECRET", "must-not-leak")
	rt := newRuntime(t, nil)
	path := writeTool(t, "prober.py", proberSource("[]"))
	inside := filepath.Join(filepath.Dir(path), "data.txt")
	if err := os.WriteFile(inside, []byte("readable"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Loaded as a folder of its own (Unit): it may read its folder.
	p, err := rt.Load(context.Background(), abi.Source{Path: path, Unit: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	layers := rt.Layers()
	t.Logf("layers: %s; degraded: %q", layers, layers.Degraded())
	for _, d := range layers.Degraded() {
		if !strings.Contains(d, "unavailable") {
			t.Errorf("degraded layer not reported clearly: %q", d)
		}
	}

	t.Run("clean-environment", func(t *testing.T) {
		v, err := p.Call(context.Background(), &abi.ToolCall{ID: "env", Tool: "env", Params: map[string]any{}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		env := v.(map[string]any)["env"].([]any)
		for _, k := range env {
			switch k {
			case "PATH", "LANG", "LC_ALL", "HOME", "LC_CTYPE", "MALLOC_ARENA_MAX":
			default:
				t.Errorf("worker environment has %v (want only PATH, LANG, LC_ALL, HOME, MALLOC_ARENA_MAX)", k)
			}
		}
	})
	t.Run("socket-denied", func(t *testing.T) {
		if !layers.Seccomp && !layers.NetNS {
			t.Skipf("no network isolation on this machine: %q", layers.Degraded())
		}
		port, accepted := listener(t)
		r := attempt(t, p, "connect", map[string]any{"port": int64(port)})
		if r["ok"] == true || accepted.Load() != 0 {
			t.Fatalf("a provider without Network connected to 127.0.0.1:%d: %v", port, r)
		}
		if layers.Seccomp && !strings.Contains(r["error"].(string), "PermissionError") {
			t.Errorf("socket refused with %q, want PermissionError (seccomp EACCES)", r["error"])
		}
	})
	t.Run("read-own-folder", func(t *testing.T) {
		if r := attempt(t, p, "read", map[string]any{"path": inside}); r["ok"] != true {
			t.Fatalf("reading a file in the tool's own folder: %v", r)
		}
	})
	t.Run("bare-file-reads-only-itself", func(t *testing.T) {
		if layers.Landlock == 0 {
			t.Skipf("landlock unavailable: %s", layers.LandlockErr)
		}
		// A bare file in a plugin folder: the folder holds other
		// providers' files, which it may not read.
		bare, err := rt.Load(context.Background(), abi.Source{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		defer bare.Close()
		if r := attempt(t, bare, "read", map[string]any{"path": inside}); r["ok"] == true {
			t.Fatalf("a bare tool file read %s beside it: %v", inside, r)
		}
		if r := attempt(t, bare, "read", map[string]any{"path": path}); r["ok"] != true {
			t.Fatalf("a bare tool file could not read itself: %v", r)
		}
	})
	t.Run("read-outside-denied", func(t *testing.T) {
		if layers.Landlock == 0 {
			t.Skipf("landlock unavailable: %s", layers.LandlockErr)
		}
		for _, f := range []string{outside, "/etc/passwd", "/proc/1/environ"} {
			r := attempt(t, p, "read", map[string]any{"path": f})
			if r["ok"] == true || !strings.Contains(r["error"].(string), "PermissionError") {
				t.Errorf("reading %s outside the tool's folder: %v (want PermissionError)", f, r)
			}
		}
	})
	t.Run("write-own-folder-denied", func(t *testing.T) {
		if layers.Landlock == 0 {
			t.Skipf("landlock unavailable: %s", layers.LandlockErr)
		}
		r := attempt(t, p, "write", map[string]any{"path": filepath.Join(filepath.Dir(path), "new.txt")})
		if r["ok"] == true || !strings.Contains(r["error"].(string), "PermissionError") {
			t.Errorf("writing into the tool's folder: %v (want PermissionError: read-only)", r)
		}
	})
	t.Run("signal-host-denied", func(t *testing.T) {
		if layers.Landlock < 6 {
			t.Skipf("Landlock ABI %d has no signal scoping (6)", layers.Landlock)
		}
		// By the host's pid: in a PID namespace of its own the worker
		// cannot even name it (ProcessLookupError).
		r := attempt(t, p, "signal-host", map[string]any{"pid": int64(os.Getpid())})
		if e, _ := r["error"].(string); r["ok"] == true || !(strings.Contains(e, "PermissionError") || strings.Contains(e, "ProcessLookupError")) {
			t.Errorf("the worker could signal the host: %v", r)
		}
	})
	t.Run("no-capabilities", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("the host is not root: it has no capabilities to hand down")
		}
		// sethostname needs CAP_SYS_ADMIN, which a root host's worker
		// used to inherit (with every other capability).
		if r := attempt(t, p, "sethostname", map[string]any{}); r["ok"] == true || !strings.Contains(r["error"].(string), "PermissionError") {
			t.Errorf("the worker holds CAP_SYS_ADMIN: %v", r)
		}
	})
	t.Run("raise-rlimit-denied", func(t *testing.T) {
		if !layers.Seccomp {
			t.Skipf("seccomp unavailable: %s", layers.SeccompErr)
		}
		if r := attempt(t, p, "raise-limit", map[string]any{}); r["ok"] == true {
			t.Errorf("the worker raised its memory limit: %v", r)
		}
	})
}

// TestSandboxNetworkGranted: Network(*) gives the workers the network;
// Network(host pattern) gives them no network of their own, and
// socket.create_connection reaches matching hosts through the host only;
// Network asked but not granted gives nothing.
func TestSandboxNetworkGranted(t *testing.T) {
	rt := newRuntime(t, nil)
	all, err := abi.ParseGrants([]string{"Network(*)"})
	if err != nil {
		t.Fatal(err)
	}
	port, accepted := listener(t)
	waitAccepted := func(n int32) {
		t.Helper()
		for i := 0; accepted.Load() < n; i++ {
			if i == 3000 { // 30 s: only bounds a hang
				t.Fatalf("the listener saw %d connections, want %d", accepted.Load(), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// Network(*): sockets of its own.
	whole := writeTool(t, "netwhole.py", proberSource(`[Capability.Network("*")]`))
	p, err := rt.Load(context.Background(), abi.Source{Path: whole, Grants: all})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.(*python.Provider).Network() {
		t.Fatal("a provider asking Network(*) with grant Network(*) has no network")
	}
	if r := attempt(t, p, "raw-socket", map[string]any{"host": "127.0.0.1", "port": int64(port)}); r["ok"] != true {
		t.Fatalf("a provider holding Network(*) could not connect: %v", r)
	}
	waitAccepted(1)

	// Network(127.0.0.1): brokered by the host, that host only.
	path := writeTool(t, "netprober.py", proberSource(`[Capability.Network("127.0.0.1")]`))
	p1, err := rt.Load(context.Background(), abi.Source{Path: path, Grants: all})
	if err != nil {
		t.Fatal(err)
	}
	defer p1.Close()
	pp := p1.(*python.Provider)
	if pp.Network() || !reflect.DeepEqual(pp.NetworkHosts(), []string{"127.0.0.1"}) {
		t.Fatalf("Network(127.0.0.1) granted: Network() %v, hosts %v", pp.Network(), pp.NetworkHosts())
	}
	if r := attempt(t, p1, "connect", map[string]any{"port": int64(port)}); r["ok"] != true {
		t.Fatalf("a provider holding Network(127.0.0.1) could not connect to it through the host: %v", r)
	}
	waitAccepted(2)
	for _, tc := range []struct{ tool, host, want string }{
		{"connect-to", "localhost", "PermissionError"}, // the pattern is matched, not the address
		{"connect-to", "127.0.0.2", "PermissionError"},
	} {
		r := attempt(t, p1, tc.tool, map[string]any{"host": tc.host, "port": int64(port)})
		if r["ok"] != false || !strings.Contains(r["error"].(string), tc.want) {
			t.Errorf("%s %s with Network(127.0.0.1): %v, want %s", tc.tool, tc.host, r, tc.want)
		}
	}
	if pp.Layers().Seccomp {
		r := attempt(t, p1, "raw-socket", map[string]any{"host": "127.0.0.1", "port": int64(port)})
		if r["ok"] != false || !strings.Contains(r["error"].(string), "PermissionError") {
			t.Errorf("a socket of its own with Network(127.0.0.1): %v, want PermissionError", r)
		}
	}
	if r := attempt(t, p1, "connect-to", map[string]any{"host": "127.0.0.1", "port": int64(port)}); r["ok"] != true {
		t.Fatalf("second brokered connection: %v", r)
	}
	waitAccepted(3)

	// Network(*.example.com) does not reach 127.0.0.1 through an IPv6
	// zone: "::ffff:127.0.0.1%a.example.com" matched the pattern and
	// was dialed as 127.0.0.1.
	zpath := writeTool(t, "netzone.py", proberSource(`[Capability.Network("*.example.com")]`))
	pz, err := rt.Load(context.Background(), abi.Source{Path: zpath, Grants: all})
	if err != nil {
		t.Fatal(err)
	}
	defer pz.Close()
	for _, h := range []string{"::ffff:127.0.0.1%a.example.com", "127.0.0.1%x.example.com", "[::1].example.com"} {
		if r := attempt(t, pz, "connect-to", map[string]any{"host": h, "port": int64(port)}); r["ok"] != false {
			t.Errorf("Network(*.example.com) reached %q: %v", h, r)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if n := accepted.Load(); n != 3 {
		t.Fatalf("the listener saw %d connections, want still 3", n)
	}

	// Asked but not granted: no network.
	p2, err := rt.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	if p2.(*python.Provider).Network() || len(p2.(*python.Provider).NetworkHosts()) != 0 {
		t.Fatal("Network asked but not granted, yet the workers have network")
	}
	if r := attempt(t, p2, "connect", map[string]any{"port": int64(port)}); r["ok"] != false {
		t.Fatalf("a provider without Network connected: %v", r)
	}
}

func TestSandboxDisabled(t *testing.T) {
	off := false
	rt := newRuntime(t, func(c *python.Config) { c.Sandbox = &off })
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "p.py", proberSource("[]"))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	l := rt.Layers()
	if !l.Disabled || len(l.Degraded()) != 1 || !strings.Contains(l.Degraded()[0], "unconfined") {
		t.Fatalf("sandbox off is not reported: %+v %q", l, l.Degraded())
	}
	if r := attempt(t, p, "read", map[string]any{"path": "/etc/passwd"}); r["ok"] != true {
		t.Fatalf("unconfined worker cannot read /etc/passwd: %v", r)
	}
}

// TestForkedProcessesDieWithWorker: a process a tool forks, even one that
// left the worker's process group with setsid, dies with the worker (the
// worker is its PID namespace's init). It used to outlive the worker, and
// the host.
func TestForkedProcessesDieWithWorker(t *testing.T) {
	rt := newRuntime(t, nil)
	path := writeTool(t, "forker.py", proberSource("[]"))
	p, err := rt.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if !rt.Layers().PIDNS {
		p.Close()
		t.Skipf("no PID namespace on this machine: %s", rt.Layers().PIDNSErr)
	}
	if r := attempt(t, p, "fork-orphan", map[string]any{}); r["ok"] != true {
		t.Fatalf("fork-orphan: %v", r)
	}
	// Every process running this tool file (the worker and its orphan).
	running := func() []string {
		var out []string
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && strings.Contains(string(cmd), path) {
				out = append(out, e.Name())
			}
		}
		return out
	}
	if n := len(running()); n < 2 {
		t.Fatalf("%d processes run the tool file, want the worker and its orphan", n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(running()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := running(); len(left) > 0 {
		for _, pid := range left {
			if n, _ := strconv.Atoi(pid); n > 0 {
				_ = testutil.Kill(n)
			}
		}
		t.Fatalf("processes %v outlived the worker", left)
	}
}

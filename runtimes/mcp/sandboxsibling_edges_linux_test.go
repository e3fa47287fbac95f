//go:build linux

package mcp

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/internal/landlock"
	"github.com/aios-host/aios-host/internal/proclimit"
)

// siblingSecret stands for what a server holds in its memory (a token
// from its env, a user's files it read).
var siblingSecret = [16]byte{'s', 'i', 'b', 'l', 'i', 'n', 'g', '-', 's', 'e', 'c', 'r', 'e', 't'}

// selfMark is "PID ADDRESS": the fake server's process and where its
// siblingSecret is.
func selfMark() string {
	return fmt.Sprintf("%d %d", os.Getpid(), uintptr(unsafe.Pointer(&siblingSecret[0])))
}

// reachSibling tries, from one fake server, to signal another (mark is its
// selfMark) and to read its siblingSecret: "signal=… readmem=…".
func reachSibling(mark string) string {
	var pid int
	var addr uintptr
	if _, err := fmt.Sscanf(mark, "%d %d", &pid, &addr); err != nil {
		return "sibling=" + err.Error()
	}
	out := "signal="
	if err := unix.Kill(pid, 0); err != nil {
		out += err.Error()
	} else {
		out += "ok"
	}
	buf := make([]byte, len(siblingSecret))
	_, err := unix.ProcessVMReadv(pid, []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}, []unix.RemoteIovec{{Base: addr, Len: len(buf)}}, 0)
	if err != nil {
		return out + " readmem=" + err.Error()
	}
	return out + " readmem=" + strings.TrimRight(string(buf), "\x00")
}

// TestSandboxedServersDoNotReachEachOther: two stdio servers with the
// same sandbox (the same command and paths: two npx servers reading
// ~/.npm) were started from one confined thread and so shared a Landlock
// domain, in which a process may signal and ptrace the others: one
// server killed the other, or read its memory (the token of its env)
// with process_vm_readv. Each server now has a domain of its own.
func TestSandboxedServersDoNotReachEachOther(t *testing.T) {
	v, err := landlock.Version()
	if err != nil || v < 4 {
		t.Skipf("Landlock ABI 4 is not available here (%d, %v)", v, err)
	}
	read := []string{t.TempDir()}
	if proclimit.Race {
		read = append(read, "/proc") // the race runtime reads /proc/self/maps
	}
	servers := map[string]ServerConfig{}
	for _, name := range []string{"sib1", "sib2"} {
		c := fakeConfig(t, "sandbox")
		c.Sandbox = &Sandbox{Read: read}
		servers[name] = c
	}
	_, rec, logs, err := startBridge(t, servers)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	reach := func(server string, args map[string]any) string {
		t.Helper()
		v, err := call(t, rec.provider("org.aios.mcp."+server), "mcp-"+server+"-reach", args, 20*time.Second)
		if err != nil {
			t.Fatalf("%s: %v\n%s", server, err, logs.String())
		}
		return v.(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	}
	mark, ok := strings.CutPrefix(reach("sib2", map[string]any{"self": true}), "self=")
	if !ok {
		t.Fatalf("sib2's mark: %q", mark)
	}
	got := reach("sib1", map[string]any{"sibling": mark})
	if strings.Contains(got, "sibling-secret") {
		t.Errorf("a sandboxed server read the memory of another with the same sandbox: %q", got)
	}
	if !strings.Contains(got, "readmem=operation not permitted") {
		t.Errorf("reading the other server's memory: %q, want operation not permitted", got)
	}
	if v >= 6 && !strings.Contains(got, "signal=operation not permitted") {
		t.Errorf("signalling the other server (Landlock ABI %d scopes signals): %q, want operation not permitted", v, got)
	}
}

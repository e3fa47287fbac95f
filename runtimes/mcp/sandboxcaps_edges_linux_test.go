//go:build linux

package mcp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/internal/landlock"
	"github.com/aios-host/aios-host/internal/proclimit"
)

// capsHeld says which capabilities the calling process holds: its
// effective and permitted sets (capget), "effective=0 permitted=0" when none.
func capsHeld() string {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return "capget: " + err.Error()
	}
	eff := uint64(data[1].Effective)<<32 | uint64(data[0].Effective)
	perm := uint64(data[1].Permitted)<<32 | uint64(data[0].Permitted)
	return fmt.Sprintf("effective=%x permitted=%x", eff, perm)
}

// TestSandboxedServerHoldsNoCapabilities: a stdio server with sandbox:
// started by a host running as root ran as root with every capability of
// the host (CAP_SYS_TIME to set the machine's clock, CAP_SYS_BOOT to
// reboot it, CAP_SYS_MODULE to load a module from /lib/modules, which the
// sandbox lets it read, CAP_SYS_ADMIN to set the hostname), Landlock and
// the seccomp filter covering none of them,
// where the Python and JS workers start with none. It starts with no
// capability now, as they do (caps.DropForExec on its spawning thread).
func TestSandboxedServerHoldsNoCapabilities(t *testing.T) {
	if v, err := landlock.Version(); err != nil || v < 4 {
		t.Skipf("Landlock ABI 4 is not available here (%d, %v)", v, err)
	}
	if own := capsHeld(); own == "effective=0 permitted=0" {
		t.Skip("the test process holds no capability (not root), so a server it starts has none to inherit")
	}
	read := []string{t.TempDir()}
	if proclimit.Race {
		read = append(read, "/proc") // the race runtime reads /proc/self/maps
	}
	boxed := fakeConfig(t, "sandbox")
	boxed.Sandbox = &Sandbox{Read: read}
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"capsbox": boxed})
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	v, err := call(t, rec.provider("org.aios.mcp.capsbox"), "mcp-capsbox-reach", map[string]any{"caps": true}, 10*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	got := v.(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(got, "caps=effective=0 permitted=0") {
		t.Errorf("the sandboxed server holds capabilities of the host (%s): %q, want none", capsHeld(), got)
	}
}

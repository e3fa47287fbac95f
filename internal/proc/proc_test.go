package proc

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// TestChildrenFindsAChild: a child started here is listed, live, with its
// process group; after it is reaped it is not.
func TestChildrenFindsAChild(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	pid := cmd.Process.Pid
	found := slices.IndexFunc(Children(), func(c Child) bool { return c.PID == pid })
	if found < 0 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child %d not among %v", pid, Children())
	}
	c := Children()[found]
	if c.Zombie || c.PGRP != os.Getpid() && c.PGRP <= 0 {
		t.Errorf("child %+v: want live, with a process group", c)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if slices.ContainsFunc(Children(), func(c Child) bool { return c.PID == pid }) {
		t.Errorf("child %d still listed after it was reaped", pid)
	}
}

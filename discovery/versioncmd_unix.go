//go:build unix

package discovery

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/aios-host/aios-host/internal/fsperm"
)

// setProcessGroup puts the command in its own process group and kills the
// whole group when its context ends (a wrapper script's children too).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

func ownedSafely(exe string, st os.FileInfo) error { return fsperm.OwnedSafely(exe, st) }

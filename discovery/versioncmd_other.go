//go:build !unix

package discovery

import (
	"fmt"
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

func ownedSafely(exe string, _ os.FileInfo) error {
	return fmt.Errorf("%s: running a program for its version is supported on Unix only", exe)
}

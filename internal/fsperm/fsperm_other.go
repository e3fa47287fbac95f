//go:build !unix

package fsperm

import (
	"fmt"
	"os"
	"runtime"
)

// Checkable says whether OwnedSafely can check a file here: not off Unix.
const Checkable = false

// OwnedSafely cannot check path off Unix (aios-host reads no owner or ACL
// there), so it refuses: a file another account may have written is not
// trusted unchecked.
func OwnedSafely(path string, _ os.FileInfo) error {
	return fmt.Errorf("%s: its owner and permissions cannot be checked on %s, so it is not trusted", path, runtime.GOOS)
}

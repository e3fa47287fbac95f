//go:build !windows

package space

import "syscall"

// diskFullErrnos are the errors of a full disk (ENOSPC) or file system
// quota (EDQUOT).
var diskFullErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT}

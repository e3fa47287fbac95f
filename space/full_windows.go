package space

import "syscall"

// diskFullErrnos are the errors of a full disk or quota: ERROR_DISK_FULL
// and ERROR_HANDLE_DISK_FULL (Windows returns no ENOSPC or EDQUOT: its
// syscall package invents them).
var diskFullErrnos = []syscall.Errno{112, 39}

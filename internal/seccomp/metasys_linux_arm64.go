//go:build linux && arm64

package seccomp

import "golang.org/x/sys/unix"

// metaSyscalls change a file's mode, owner, times or extended attributes.
var metaSyscalls = []uint32{
	unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
	unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_UTIMENSAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
}

// forkSyscalls start a process without clone (none on arm64).
var forkSyscalls = []uint32{}

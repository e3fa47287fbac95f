//go:build linux

// Package caps keeps the processes a thread starts from inheriting the
// host's Linux capabilities. A host running as root would otherwise hand a
// worker every capability it has: perf_event_open on any process,
// sethostname, reboot, keyctl. Workers of untrusted code (Python, JS) are
// started from a dedicated thread that calls DropForExec first.
package caps

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Secure bits (linux/securebits.h): root gets no capabilities from exec,
// set-uid transitions change none, and the bits are locked.
const (
	secNoRoot             = 1 << 0
	secNoRootLocked       = 1 << 1
	secNoSetuidFixup      = 1 << 2
	secNoSetuidFixupLock  = 1 << 3
	secKeepCapsLocked     = 1 << 5
	secNoCapAmbientRaise  = 1 << 6
	secNoCapAmbientLocked = 1 << 7
	secureBits            = secNoRoot | secNoRootLocked | secNoSetuidFixup | secNoSetuidFixupLock |
		secKeepCapsLocked | secNoCapAmbientRaise | secNoCapAmbientLocked
)

// DropForExec makes every program the calling thread executes from now on
// start with no capabilities, even as root: it empties the thread's
// bounding, inheritable and ambient sets and sets the secure bits that stop
// exec from granting root its capabilities. The thread keeps its own
// effective capabilities (so it can still, for instance, create the
// worker's network namespace). Lock the thread to its goroutine for good
// first: the changes stay with it. A thread that holds no capability has
// nothing to drop (no_new_privs then keeps exec from granting any).
func DropForExec() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %v", err)
	}
	if data[0].Permitted|data[1].Permitted|data[0].Inheritable|data[1].Inheritable == 0 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, secureBits, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECUREBITS): %v", err)
	}
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %v", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %v", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %v", err)
	}
	return nil
}

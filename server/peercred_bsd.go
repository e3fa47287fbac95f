//go:build darwin || freebsd

package server

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// maxSocketPath is the size of sockaddr_un's sun_path: a socket path must
// be shorter (it ends with a NUL).
const maxSocketPath = 104

// xucredVersion is XUCRED_VERSION of <sys/ucred.h>, the layout
// unix.Xucred has.
const xucredVersion = 0

// peerCredUID reads the peer's effective uid of a connected unix socket
// (LOCAL_PEERCRED: the credentials it had at connect(2)).
func peerCredUID(fd uintptr) (uint32, error) {
	cred, err := unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, err
	}
	if cred.Version != xucredVersion {
		return 0, fmt.Errorf("LOCAL_PEERCRED: unknown xucred version %d", cred.Version)
	}
	return cred.Uid, nil
}

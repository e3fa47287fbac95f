//go:build linux

package server

import "golang.org/x/sys/unix"

// maxSocketPath is the size of sockaddr_un's sun_path: a socket path must
// be shorter (it ends with a NUL).
const maxSocketPath = 108

// peerCredUID reads the peer's uid of a connected unix socket
// (SO_PEERCRED).
func peerCredUID(fd uintptr) (uint32, error) {
	cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	return cred.Uid, nil
}

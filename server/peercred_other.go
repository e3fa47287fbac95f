//go:build unix && !linux && !darwin && !freebsd

package server

import (
	"fmt"
	"runtime"
)

// maxSocketPath is the smallest sun_path in use (the BSDs): a socket path
// must be shorter (it ends with a NUL).
const maxSocketPath = 104

// peerCredUID cannot read the peer's uid here: every connection to the
// socket is refused (the HTTP server with tokens serves other callers).
func peerCredUID(uintptr) (uint32, error) {
	return 0, fmt.Errorf("the socket's peer uid cannot be read on %s (no SO_PEERCRED or LOCAL_PEERCRED support in aios-host there): use the HTTP server with tokens (server.http, server.tokens)", runtime.GOOS)
}

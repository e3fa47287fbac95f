//go:build windows

package server

import (
	"errors"
	"net"
	"os"
)

// The unix socket transport is not served on Windows: the peer's
// credentials of an AF_UNIX socket cannot be read there, and the socket
// maps callers to agents by uid. Failing closed, ListenUnix and
// CheckSocket refuse with errNoUnixSocket.
var errNoUnixSocket = errors.New("the JSON-RPC unix socket is not available on Windows (its callers are identified by their uid, which Windows cannot tell for a unix socket): serve JSON-RPC over HTTP with tokens instead (server.http or --http, server.tokens), or use `aios-host mcp` over stdio")

func unixSocketUnsupported() error { return errNoUnixSocket }

// maxSocketPath is the size of sockaddr_un's sun_path.
const maxSocketPath = 108

func claimSocket(string, os.FileMode) (net.Listener, fileID, error) {
	return nil, fileID{}, errNoUnixSocket
}

func (s *Server) watchSocket(string, net.Listener, fileID) { s.wg.Done() }

func removeOwnSocket(string, fileID) {}

func peerCredUID(uintptr) (uint32, error) { return 0, errNoUnixSocket }

func peerGone(net.Conn) bool { return true }

func hungUp(net.Conn) (gone, known bool) { return false, false }

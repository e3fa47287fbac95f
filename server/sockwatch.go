//go:build unix

package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// socketCheckEvery is how often a listening host looks at its socket
// path (a variable for tests).
var socketCheckEvery = 2 * time.Second

// idOf returns the identity of the file at path (not following a link).
func idOf(path string) (fileID, fs.FileInfo, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return fileID{}, nil, err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, st, errors.New("no inode")
	}
	return fileID{uint64(sys.Dev), uint64(sys.Ino)}, st, nil
}

// listenSocket listens on path (nothing there, or a stale socket already
// removed) with mode (Server.socketMode: 0600, or 0666 when server.uids
// lists other users) and returns the listener and the socket file's
// identity. The listener does not unlink the path when closed: by then it
// may be another's (Close and watchSocket remove it only while it is this
// host's).
func listenSocket(path string, mode os.FileMode) (net.Listener, fileID, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fileID{}, fmt.Errorf("socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fileID{}, fmt.Errorf("socket %s: %w", path, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(path, mode); err != nil {
		ln.Close()
		_ = os.Remove(path)
		return nil, fileID{}, err
	}
	id, _, err := idOf(path)
	if err != nil {
		ln.Close()
		_ = os.Remove(path)
		return nil, fileID{}, fmt.Errorf("socket %s: %w", path, err)
	}
	return ln, id, nil
}

// lockSocket takes an exclusive lock on path+".lock" (made 0600 if
// missing, never through a symbolic link) for the probe, removal and
// listen that claim a socket path: two hosts starting at once on a stale
// socket each found it stale, and the second removed the first's new
// socket and listened in its place, leaving the first unreachable. Under
// the lock the second finds the first's socket live. It waits up to 5 s
// for another host's claim to end.
func lockSocket(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	lp := path + ".lock"
	f, err := os.OpenFile(lp, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("socket %s: its lock file: %w", path, err)
	}
	fd := int(f.Fd())
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("socket %s: another aios-host has been claiming it for 5 s (it holds %s); not taking it", path, lp)
			}
			return nil, fmt.Errorf("socket %s: locking %s: %w", path, lp, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return func() {
		_ = syscall.Flock(fd, syscall.LOCK_UN)
		f.Close()
	}, nil
}

// claimSocket listens on path under lockSocket: a stale socket there is
// removed first; a live one, or anything else, is not this host's (the
// error of probeSocket).
func claimSocket(path string, mode os.FileMode) (net.Listener, fileID, error) {
	if err := socketPathFits(path); err != nil {
		return nil, fileID{}, err // before a lock file is made for it
	}
	unlock, err := lockSocket(path)
	if err != nil {
		return nil, fileID{}, err
	}
	defer unlock()
	stale, err := probeSocket(path)
	if err != nil {
		return nil, fileID{}, err
	}
	if stale {
		_ = os.Remove(path)
	}
	return listenSocket(path, mode)
}

// watchSocket looks at the socket path every socketCheckEvery until the
// server closes. When the socket file was removed while the host runs (a
// cleaner of /tmp or /run, an operator's rm), it listens there again, so
// `aios-host list` and `call` reach it again instead of silently running
// in a process of their own. A path that now holds something else (another
// host's socket, a file) is left alone, with one warning.
func (s *Server) watchSocket(path string, ln net.Listener, id fileID) {
	defer s.wg.Done()
	t := time.NewTicker(socketCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case <-t.C:
		}
		now, _, err := idOf(path)
		if err == nil && now == id {
			continue
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue // cannot tell now (a folder on the way unreadable); look again
		}
		// Listen there again as at start: under the lock, a dead host's
		// socket removed, another's live one (or a file) left alone.
		nln, nid, err := claimSocket(path, s.socketMode())
		var taken *takenError
		if errors.As(err, &taken) {
			s.log.Warn("server: the socket path holds something else now; this host is not reachable there until it restarts", "socket", path, "found", taken.found)
			return
		}
		if err != nil {
			s.log.Warn("server: the socket was removed and listening there again failed; looking again", "socket", path, "error", err)
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nln.Close()
			removeOwnSocket(path, nid)
			return
		}
		// The new listener takes the old one's place (a socket removed
		// again and again does not grow the list).
		if i := slices.Index(s.listeners, ln); i >= 0 {
			s.listeners[i] = nln
		} else {
			s.listeners = append(s.listeners, nln)
		}
		s.sockets[path] = nid
		s.wg.Add(1)
		s.mu.Unlock()
		go s.acceptUnix(nln)
		ln.Close() // unreachable since its file went; its connections go on
		ln, id = nln, nid
		s.log.Warn("server: the socket was removed while the host ran; listening there again", "socket", path)
	}
}

// removeOwnSocket removes path if it is still the socket file this host
// made (id), not one another host put there since.
func removeOwnSocket(path string, id fileID) {
	if now, _, err := idOf(path); err == nil && now == id {
		_ = os.Remove(path)
	}
}

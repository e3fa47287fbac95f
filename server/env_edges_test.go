package server

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestListenUnixKeepsNonSocket: a --socket path that names a regular
// file or a directory (an operator's typo, another program's file) is
// refused, naming the path and what is there, and left as it was. Before,
// anything at the path that did not answer a dial was removed as "a stale
// socket": the file's content was lost, an empty directory vanished.
func TestListenUnixKeepsNonSocket(t *testing.T) {
	ts := newTestServer(t, "", false)
	file := filepath.Join(ts.dir, "notes.txt")
	if err := os.WriteFile(file, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ts.dir, "adir")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, dir} {
		err := ts.s.ListenUnix(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a socket") {
			t.Errorf("ListenUnix(%s) = %v, want an error naming it and saying it is not a socket", p, err)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep me" {
		t.Errorf("regular file at the socket path: %q, %v after ListenUnix; want it kept", b, err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("directory at the socket path: %v after ListenUnix; want it kept", err)
	}
}

// TestListenUnixReplacesStaleSocket: a socket file left by a dead host
// (nothing listens) is still replaced.
func TestListenUnixReplacesStaleSocket(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := filepath.Join(ts.dir, "stale.sock")
	ln, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(p); err != nil {
		t.Fatal(err)
	}
	if err := ts.s.ListenUnix(p); err != nil {
		t.Fatalf("ListenUnix over a stale socket: %v", err)
	}
	c, err := net.Dial("unix", p)
	if err != nil {
		t.Fatalf("dial the replaced socket: %v", err)
	}
	c.Close()
}

// TestShutdownCancelSaysWhy: a call cancelled because the host shuts
// down (SIGTERM) tells its client so, on the socket and over HTTP; before,
// it said only "context canceled" (or a runtime's "cancelled by its
// caller"), as if the client had given up.
func TestShutdownCancelSaysWhy(t *testing.T) {
	ts := newTestServer(t, "", true)
	c := dial(t, ts)
	sock := make(chan error, 1)
	go func() { sock <- c.Call(context.Background(), "tools/call", map[string]any{"name": "slow"}, nil) }()
	web := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", ts.url+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			web <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		web <- string(b)
	}()
	ts.waitSlow(t, 2)
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-sock:
		if _, code := rpcCode(err); code != abi.Cancelled || !strings.Contains(err.Error(), "shutting down") {
			t.Errorf("socket call at shutdown: %v; want Cancelled saying the host is shutting down", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer for the socket call")
	}
	select {
	case body := <-web:
		if !strings.Contains(body, "Cancelled") || !strings.Contains(body, "shutting down") {
			t.Errorf("HTTP call at shutdown: %s; want Cancelled saying the host is shutting down", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer for the HTTP call")
	}
}

// TestServerConfigRefusesNegatives: a negative size, count or
// duration under server: is refused, naming the key and its line, as
// discovery's and the other sections' are. Before, it silently became the
// default (server.read_timeout: -1s served with 10 s).
func TestServerConfigRefusesNegatives(t *testing.T) {
	for _, kv := range []string{
		"max_body_bytes: -1", "max_batch: -1", "max_batch_answer_bytes: -5", "list_page_size: -1",
		"max_conns_per_uid: -1", "read_timeout: -1s", "idle_timeout: -5m", "write_timeout: -3s",
	} {
		cfg, err := config.Parse([]byte("server:\n  "+kv+"\n"), "host.yaml")
		if err != nil {
			t.Fatal(err)
		}
		key := "server." + kv[:strings.IndexByte(kv, ':')]
		if _, err := LoadConfig(cfg); err == nil || !strings.Contains(err.Error(), "host.yaml:2") || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: LoadConfig = %v; want an error naming host.yaml:2 and %s", kv, err, key)
		}
	}
	// 0 (or leaving it out) still means the default.
	cfg, err := config.Parse([]byte("server:\n  read_timeout: 0s\n  max_batch: 0\n"), "host.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(cfg); err != nil || c.ReadTimeout != DefaultReadTimeout || c.MaxBatch != DefaultMaxBatch {
		t.Errorf("zeros: %+v, %v; want the defaults", c, err)
	}
}

// TestListenUnixLongPathSaysWhy: a socket path longer than a unix
// socket address holds is refused saying so; before, the error was
// "bind: invalid argument", which does not say what to change.
func TestListenUnixLongPathSaysWhy(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := filepath.Join(ts.dir, strings.Repeat("s", 120)+".sock")
	err := ts.s.ListenUnix(p)
	if err == nil || !strings.Contains(err.Error(), "too long") || !strings.Contains(err.Error(), strconv.Itoa(maxSocketPath)) {
		t.Errorf("ListenUnix(%d-byte path) = %v; want an error saying the path is too long (a unix socket address holds %d bytes)", len(p), err, maxSocketPath)
	}
}

// TestSecretFilesBounded: a server.tokens token_file or
// server.signing_key that names a FIFO (nothing writing to it) or a device
// is refused at once, naming it; one larger than a secret could be is
// refused without being read whole. Before, os.ReadFile waited forever
// on the FIFO (the host hung at start) and read /dev/zero until memory ran
// out.
func TestSecretFilesBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "token.fifo")
	testutil.Mkfifo(t, fifo)
	big := filepath.Join(dir, "big.token")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, big} {
		done := make(chan error, 1)
		go func() {
			_, err := TokenConfig{Agent: "peer", TokenFile: p}.value("")
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("token_file %s: %v; want an error naming it", p, err)
			}
		case <-time.After(3 * time.Second):
			// Unblock the open so the goroutine ends.
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			<-done
			t.Errorf("token_file %s: still reading after 3 s", p)
		}
	}
	if _, err := (TokenConfig{Agent: "peer", TokenFile: os.DevNull}).value(""); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("token_file %s: %v; want it refused as not a regular file", os.DevNull, err)
	}
	// A regular token file still works, trimmed.
	good := filepath.Join(dir, "good.token")
	if err := os.WriteFile(good, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, err := (TokenConfig{Agent: "peer", TokenFile: good}).value(""); err != nil || v != "s3cret" {
		t.Errorf("good token_file: %q, %v", v, err)
	}
}

// TestSocketClaimRace: hosts starting at once on a path holding a stale
// socket each found it stale; a later one removed an earlier one's new
// socket and listened in its place, leaving that host unreachable. Under
// the socket's lock exactly one listens, the others are told another host
// listens there, and the one listening is reachable.
func TestSocketClaimRace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "race.sock")
	for round := range 10 {
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		ln.Close() // a stale socket
		const n = 6
		servers := make([]*testServer, n)
		for i := range servers {
			servers[i] = newTestServer(t, "", false)
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = servers[i].s.ListenUnix(p)
			}()
		}
		close(start)
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil && won >= 0:
				t.Fatalf("round %d: servers %d and %d both listen on %s", round, won, i, p)
			case err == nil:
				won = i
			case !strings.Contains(err.Error(), "another host is already listening there"):
				t.Fatalf("round %d: server %d: %v; want another host listening", round, i, err)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no server listens: %v", round, errs)
		}
		c, err := net.Dial("unix", p)
		if err != nil {
			t.Fatalf("round %d: the winner's socket is gone: %v", round, err)
		}
		c.Close()
		servers[won].s.Close()
		_ = os.Remove(p)
	}
}

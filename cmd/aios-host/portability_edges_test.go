package main

import (
	"errors"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestPortabilityRunWithoutUnixSocket: where the platform has no
// unix socket (Windows), run refuses without --http, saying why, and with
// --http serves HTTP only, making no socket file.
func TestPortabilityRunWithoutUnixSocket(t *testing.T) {
	why := errors.New("the JSON-RPC unix socket is not available here")
	old := socketUnsupported
	socketUnsupported = func() error { return why }
	t.Cleanup(func() { socketUnsupported = old })

	e := newEnv(t)
	sock := e.data + "/h.sock"
	code, _, errs := e.run("", "run", "--socket", sock)
	if code == 0 || !strings.Contains(errs, why.Error()) || !strings.Contains(errs, "--http") {
		t.Fatalf("run without --http: %d %q; want a failure saying why and to give --http", code, errs)
	}

	r := e.startRun("HTTP on http://", "--socket", sock, "--http", "127.0.0.1:0")
	log := r.stderr.String()
	if !strings.Contains(log, "no JSON-RPC unix socket: "+why.Error()) {
		t.Errorf("the log does not say there is no socket, and why: %s", log)
	}
	m := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(log)
	resp, err := http.Get(m + "/health")
	if err != nil {
		t.Fatalf("HTTP not served at %q: %v", m, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /health: %s", resp.Status)
	}
	if _, err := os.Lstat(sock); err == nil {
		t.Errorf("a socket file was made at %s", sock)
	}
	r.stop()
}

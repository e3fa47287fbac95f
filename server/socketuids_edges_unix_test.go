//go:build unix

package server

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/host"
)

// TestSocketOpenToListedUIDs: server.uids maps other uids to agents,
// and docs/discovery.md says a uid not listed "gets one error line and the
// connection is closed". The socket was made 0600 whatever server.uids
// said, so a listed uid's connect failed with EACCES before the host ever
// saw its uid: the mapping could never serve anyone but the host's own
// user (and root). With another uid listed the socket is 0666, the uid
// check (SO_PEERCRED) deciding who is served; a folder on the way that
// other users cannot search is said at start. Without one it stays 0600.
func TestSocketOpenToListedUIDs(t *testing.T) {
	for _, tc := range []struct {
		name, uids string
		wantMode   os.FileMode
	}{
		{name: "own uid only", wantMode: 0o600},
		{name: "another uid listed", uids: "  uids: {\"4242\": reader}\n", wantMode: 0o666},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir() // 0700: other users cannot search it
			cfg := mustParse(t, "audit: {disabled: true}\nagents:\n  cli: {grants: ['CallTool(*)']}\n  reader: {grants: []}\nserver:\n"+tc.uids)
			cfg.Data = filepath.Join(dir, "data")
			h, err := host.New(host.Options{Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			var logs bytes.Buffer
			s, err := New(Options{Host: h, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sock := filepath.Join(dir, "run", "h.sock")
			if err := s.ListenUnix(sock); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(sock)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != tc.wantMode {
				t.Errorf("socket mode %o, want %o", got, tc.wantMode)
			}
			warned := strings.Contains(logs.String(), "server.uids") && strings.Contains(logs.String(), dir)
			if tc.uids != "" && !warned {
				t.Errorf("no warning that uid 4242 cannot reach the socket through %s: %s", dir, logs.String())
			}
			if tc.uids == "" && warned {
				t.Errorf("a warning about other uids, none listed: %s", logs.String())
			}
		})
	}
}

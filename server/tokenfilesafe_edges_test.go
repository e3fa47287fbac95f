package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenFileOtherAccounts: a server.tokens[].token_file is the
// secret that makes an HTTP peer an agent. One that another account can
// write (or under a folder it can write) lets that account put a token of
// its choosing there, and one every account can read hands it the token:
// either way it calls over HTTP with the agent's grants. discovery.keys
// and mcp.http.jwks_file refuse a file another account can write; a
// token_file was read whatever its mode. It is refused at start, naming
// the file and why; a file only its owner's group may read still serves.
func TestTokenFileOtherAccounts(t *testing.T) {
	for _, tc := range []struct {
		name          string
		dirMode, mode os.FileMode
		want          string // "" when taken
	}{
		{name: "private", dirMode: 0o700, mode: 0o600},
		{name: "group may read", dirMode: 0o750, mode: 0o640},
		{name: "others may read", dirMode: 0o755, mode: 0o644, want: "readable by others"},
		{name: "others may write", dirMode: 0o700, mode: 0o602, want: "writable by group or others"},
		{name: "group may write", dirMode: 0o700, mode: 0o620, want: "writable by group or others"},
		{name: "folder others may write", dirMode: 0o777, mode: 0o600, want: "writable by group or others"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "secrets")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "peer.token")
			if err := os.WriteFile(p, []byte("s3cret\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			// (chmod, not the create modes: the umask would clear the bits)
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			v, err := TokenConfig{Agent: "peer", TokenFile: p}.value("")
			if tc.want == "" {
				if err != nil || v != "s3cret" {
					t.Fatalf("token_file %o in a folder %o: %q, %v; want it taken", tc.mode, tc.dirMode, v, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("token_file %o in a folder %o was taken: another account can act as agent peer", tc.mode, tc.dirMode)
			}
			if !strings.Contains(err.Error(), p) && !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "agent peer") {
				t.Errorf("refusal does not name the file, the agent and why (%s): %v", tc.want, err)
			}
		})
	}
}

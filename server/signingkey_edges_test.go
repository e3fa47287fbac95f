//go:build unix

package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/trust"
)

// TestSigningKeyFileOtherAccounts: server.signing_key was read whatever
// its mode (p90 left it, having fixed token_file): an account that could
// read it could sign Adapter Cards as this host, one that could write it
// (or a folder on its way) could make the host sign with its key. It is
// refused as a token_file is; 0600, as aios-host keygen writes it, and a
// group-readable key are taken.
func TestSigningKeyFileOtherAccounts(t *testing.T) {
	k, err := trust.GenerateKey("EdDSA", "host")
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, err := trust.MarshalPrivateKeyPEM(k.Key)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dirMode, mode os.FileMode
		want          string
	}{
		{0o700, 0o600, ""},
		{0o750, 0o640, ""},
		{0o755, 0o644, "readable by others"},
		{0o700, 0o620, "writable by group or others"},
		{0o777, 0o600, "writable by group or others"},
	} {
		dir := filepath.Join(t.TempDir(), "keys")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "host.pem")
		if err := os.WriteFile(p, pemBytes, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, tc.mode); err != nil { // (not the create mode: the umask)
			t.Fatal(err)
		}
		if err := os.Chmod(dir, tc.dirMode); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Parse([]byte("server:\n  signing_key: "+p+"\n  signing_kid: host\n"), filepath.Join(dir, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		h, err := host.New(host.Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{Host: h, Config: cfg})
		if err == nil {
			s.Close()
		}
		h.Close()
		_ = os.Chmod(dir, 0o700)
		if tc.want == "" {
			if err != nil {
				t.Errorf("key %o in a folder %o: %v; want it taken", tc.mode, tc.dirMode, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("key %o in a folder %o was taken: another account could sign cards as this host", tc.mode, tc.dirMode)
		} else if !strings.Contains(err.Error(), "server.signing_key") || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "sign Adapter Cards") {
			t.Errorf("refusal does not name the key, why (%s) and the threat: %v", tc.want, err)
		}
	}
}

package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyFileWritableByOthersRefused: a JWKS file that group or others
// may write (or in a folder they may write) is refused, naming the file:
// whoever can write it chooses which signatures count.
func TestKeyFileWritableByOthersRefused(t *testing.T) {
	k, err := GenerateKey("ES256", "k1")
	if err != nil {
		t.Fatal(err)
	}
	set, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(path, set, 0o600); err != nil {
		t.Fatal(err)
	}
	load := func() error {
		_, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWKS: path}}, "", nil)
		return err
	}
	if err := load(); err != nil {
		t.Fatalf("a 0600 key file: %v", err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := load(); err == nil || !strings.Contains(err.Error(), "key file "+path+" is not safe") || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("a 0666 key file: %v", err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if err := load(); err == nil || !strings.Contains(err.Error(), dir+" is writable by group or others") {
		t.Fatalf("a key file in a 0777 folder: %v", err)
	}
}

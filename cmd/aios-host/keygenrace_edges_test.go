package main

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/trust"
)

// TestConcurrentKeygenKeepsPair: two `keygen --force --out DIR` at once
// (two CI jobs, a script run twice) each exited 0, but their renames
// interleaved: private.pem of one beside a jwks.json holding only the
// other's public key, so every card signed with it failed "unknown signing
// key". And two without --force on a new DIR both passed the "exists"
// check, the second replacing the first's key without --force. Now a
// keygen holds DIR locked from its check to its last rename: the pair on
// disk always matches, and without --force only one succeeds.
func TestConcurrentKeygenKeepsPair(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("folder locks are flock(2)'s")
	}
	e := newEnv(t)
	parallel := func(n int, args ...string) (ok int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if code, _, _ := e.bare(args...); code == exitOK {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return ok
	}
	for round := range 4 {
		dir := filepath.Join(t.TempDir(), "k")
		if ok := parallel(4, "keygen", "--alg", "EdDSA", "--out", dir); ok != 1 {
			t.Errorf("round %d: %d of 4 keygens without --force into one new folder succeeded, want 1", round, ok)
		}
		if ok := parallel(6, "keygen", "--alg", "EdDSA", "--out", dir, "--force"); ok != 6 {
			t.Errorf("round %d: %d of 6 keygen --force succeeded", round, ok)
		}
		pemBytes, err := os.ReadFile(filepath.Join(dir, "private.pem"))
		if err != nil {
			t.Fatal(err)
		}
		key, err := trust.ParsePrivateKeyPEM(pemBytes, "")
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "jwks.json"))
		if err != nil {
			t.Fatal(err)
		}
		pubs, err := trust.ParseJWKS(data, abi.Verified, "jwks.json")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range pubs {
			if tp, err := trust.Thumbprint(p.JWK.Key); err == nil && tp == key.KeyID {
				found = true
			}
		}
		if !found {
			t.Errorf("round %d: jwks.json (%d keys) lacks private.pem's public key %s", round, len(pubs), key.KeyID)
		}
	}
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/fsperm"
	"github.com/aios-host/aios-host/trust"
)

func runKeygen(c *cli, args []string) int {
	fs := c.flags("keygen", "keygen --alg ES256|RS256|EdDSA --out DIR [--kid ID] [--force]", `
Make a key pair for signing Adapter Cards. Writes DIR/private.pem (PKCS #8,
mode 0600) and DIR/jwks.json (the public key as a JWKS, with kid, alg and
use "sig"), and prints the key id. The key id defaults to the key's RFC 7638
thumbprint; "sign" and "audit anchor" without --kid take the kid of the
matching key in the jwks.json beside the private key, so --kid here is
enough. Trust the key by listing DIR/jwks.json under discovery.keys in the
config. With --force, existing files are replaced (never written through a
symbolic link), each by a new file fsynced and renamed over it, jwks.json
first getting the new public key beside the old ones: a crash at any point
leaves a jwks.json that holds private.pem's public key (then run keygen
--force again to drop the old keys from it).`)
	alg := fs.String("alg", "ES256", "signature `algorithm`: ES256 (P-256), RS256 (RSA 3072) or EdDSA (Ed25519)")
	out := pathString(fs, "out", "output `dir` (created if missing)")
	kid := nonEmptyString(fs, "kid", "key `id` (default: the RFC 7638 thumbprint; not empty)")
	force := fs.Bool("force", false, "overwrite existing files")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.usageError(fs, "keygen takes no arguments, got %q", pos)
	}
	if *out == "" {
		return c.usageError(fs, "--out DIR is required")
	}
	key, err := trust.GenerateKey(*alg, *kid)
	if err != nil {
		return c.usageError(fs, "%v", err)
	}
	pemBytes, err := trust.MarshalPrivateKeyPEM(key.Key)
	if err != nil {
		return c.fail(err)
	}
	jwks, err := trust.MarshalJWKS(key.PublicJWK())
	if err != nil {
		return c.fail(err)
	}
	// The folders made here are synced in their parents: the key files'
	// renames were made durable in a folder whose own entry was not.
	if err := fsperm.MkdirAll(*out, 0o700, syncDir); err != nil {
		return c.fail(err)
	}
	// The folder stays locked from the look below to the last rename: two
	// keygens at once both found no file, or interleaved their renames,
	// leaving one's private.pem beside the other's jwks.json.
	unlock, err := lockDir(*out)
	if err != nil {
		return c.fail(err)
	}
	defer unlock()
	privPath, jwksPath := filepath.Join(*out, "private.pem"), filepath.Join(*out, "jwks.json")
	// Both paths are looked at before either file is written: a folder
	// at jwks.json was found only after private.pem had been replaced.
	for _, p := range []string{privPath, jwksPath} {
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return c.fail(err)
		case st.IsDir():
			return c.fail(fmt.Errorf("%s is a folder, not a file: remove it or give another --out", p))
		case !*force:
			return c.fail(fmt.Errorf("%s exists (use --force to overwrite)", p))
		}
	}
	// The pair on disk stays consistent at every rename (a crash between
	// two left a new private key beside the old public one): jwks.json
	// first also gets the new public key, then private.pem is replaced,
	// then jwks.json is cut down to the new key.
	if both := jwksWith(jwksPath, jwks); both != nil {
		if err := replaceFile(jwksPath, both, 0o644); err != nil {
			return c.fail(err)
		}
	}
	if err := replaceFile(privPath, pemBytes, 0o600); err != nil {
		return c.fail(err)
	}
	if err := replaceFile(jwksPath, append(jwks, '\n'), 0o644); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, "key id:      %s\nalgorithm:   %s\nprivate key: %s\npublic JWKS: %s\n", key.KeyID, key.Algorithm, privPath, jwksPath)
	return exitOK
}

// jwksWith returns the JWKS at path (a regular file that parses as a JWKS
// or a single JWK) with the keys of the JWKS document add put first, or nil
// when there is no such file to extend.
func jwksWith(path string, add []byte) []byte {
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	data, err := readInputFile(path, maxKeyFileBytes, "a JWKS")
	if err != nil {
		return nil
	}
	var old, set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if json.Unmarshal(data, &old) != nil || json.Unmarshal(add, &set) != nil {
		return nil
	}
	if old.Keys == nil { // a single JWK
		var one map[string]any
		if json.Unmarshal(data, &one) != nil || one == nil {
			return nil
		}
		old.Keys = []json.RawMessage{data}
	}
	set.Keys = append(set.Keys, old.Keys...)
	out, err := json.MarshalIndent(set, "", "  ")
	if err != nil {
		return nil
	}
	return append(out, '\n')
}

// syncDir fsyncs a folder so that a rename in it is durable
// (fsperm.SyncDir). A variable for the tests.
var syncDir = fsperm.SyncDir

// replaceFileStep is called after each rename of replaceFile (a test's
// look at the files between two renames).
var replaceFileStep = func() {}

// replaceFile writes data to a new file in path's folder, created with mode
// 0600 and then given perm, fsyncs it, renames it over path and fsyncs the
// folder. So a crash leaves the old file or the new one, never a torn one,
// the mode of a file that was there does not carry over, and a symbolic
// link at path is replaced, not followed.
func replaceFile(path string, data []byte, perm os.FileMode) (err error) {
	// The errors name path, not the temporary file ("open
	// dir/.a.jws.tmp-4171440443: no such file or directory").
	defer func() {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case err == nil:
		case errors.As(err, &le) && errors.Is(err, fs.ErrExist):
			if st, serr := os.Lstat(path); serr == nil && st.IsDir() {
				err = fmt.Errorf("%s is a folder, not a file", path)
				break
			}
			err = fmt.Errorf("%s: %w", path, le.Err)
		case errors.As(err, &le):
			err = fmt.Errorf("%s: %w", path, le.Err)
		case errors.As(err, &pe):
			err = fmt.Errorf("%s: %s: %w", path, pe.Op, pe.Err)
		}
	}()
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	replaceFileStep()
	return nil
}

// loadSigningKey reads a private key file (PEM, from keygen). Without kid,
// the key id is the kid of the matching public key in the jwks.json beside
// the file (what keygen wrote, --kid included), else the key's RFC 7638
// thumbprint.
func loadSigningKey(file, kid string) (trust.SigningKey, error) {
	pemBytes, err := readInputFile(file, maxKeyFileBytes, "a key")
	if err != nil {
		return trust.SigningKey{}, err
	}
	key, err := trust.ParsePrivateKeyPEM(pemBytes, kid)
	if err != nil {
		return trust.SigningKey{}, fmt.Errorf("%s: %w", file, err)
	}
	if kid != "" {
		return key, nil
	}
	besideKid, err := kidBeside(file, key.KeyID)
	if err != nil {
		return trust.SigningKey{}, fmt.Errorf("key id of %s: %w (give --kid)", file, err)
	}
	if besideKid != "" {
		key.KeyID = besideKid
	}
	return key, nil
}

// kidBeside returns the jwks.json beside the private key file and the kid
// it gives the key of thumbprint tp ("" when there is no such file or
// key in it).
func kidBeside(file, tp string) (string, error) {
	jwksPath := filepath.Join(filepath.Dir(file), "jwks.json")
	data, err := readInputFile(jwksPath, maxKeyFileBytes, "a JWKS")
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	pubs, err := trust.ParseJWKS(data, abi.Verified, jwksPath)
	if err != nil {
		return "", err
	}
	for _, pub := range pubs {
		if t, err := trust.Thumbprint(pub.JWK.Key); err == nil && t == tp && pub.JWK.KeyID != "" {
			return pub.JWK.KeyID, nil
		}
	}
	return "", nil
}

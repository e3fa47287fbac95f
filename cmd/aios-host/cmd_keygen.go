package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aios-host/aios-host/trust"
)

func runKeygen(c *cli, args []string) int {
	fs := c.flags("keygen", "keygen --alg ES256|RS256|EdDSA --out DIR [--kid ID] [--force]", `
Make a key pair for signing Adapter Cards. Writes DIR/private.pem (PKCS #8,
mode 0600) and DIR/jwks.json (the public key as a JWKS, with kid, alg and
use "sig"), and prints the key id. The key id defaults to the key's RFC 7638
thumbprint, which is also what "sign" derives from the private key.
Trust the key by listing DIR/jwks.json under discovery.keys in the config.`)
	alg := fs.String("alg", "ES256", "signature `algorithm`: ES256 (P-256), RS256 (RSA 3072) or EdDSA (Ed25519)")
	out := fs.String("out", "", "output `dir` (created if missing)")
	kid := fs.String("kid", "", "key `id` (default: the RFC 7638 thumbprint)")
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
	if err := os.MkdirAll(*out, 0o700); err != nil {
		return c.fail(err)
	}
	privPath, jwksPath := filepath.Join(*out, "private.pem"), filepath.Join(*out, "jwks.json")
	if !*force {
		for _, p := range []string{privPath, jwksPath} {
			if _, err := os.Stat(p); err == nil {
				return c.fail(fmt.Errorf("%s exists (use --force to overwrite)", p))
			} else if !errors.Is(err, os.ErrNotExist) {
				return c.fail(err)
			}
		}
	}
	if err := os.WriteFile(privPath, pemBytes, 0o600); err != nil {
		return c.fail(err)
	}
	if err := os.WriteFile(jwksPath, append(jwks, '\n'), 0o644); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, "key id:      %s\nalgorithm:   %s\nprivate key: %s\npublic JWKS: %s\n", key.KeyID, key.Algorithm, privPath, jwksPath)
	return exitOK
}

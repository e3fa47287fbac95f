package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/trust"
)

func runSign(c *cli, args []string) int {
	fs := c.flags("sign", "sign CARD --key FILE [--kid ID]", `
Sign an Adapter Card (adapter.json) and write the signed card to standard
output. The card is validated first. When it has an "artifact" member
({"path": "tool.wasm"}), the SHA-256 of that file (relative to the card's
folder, or to the package for a card in a package's aios/ folder,
PKG/aios/adapter.json) is written into artifact.sha256 before signing, and
the other code files of that folder into artifact.files, so the signature
pins the code. The signature is a JWS with a detached payload over the
RFC 8785 canonical form of the card without its "signature" member; the
algorithm follows the key (RSA → RS256, P-256 → ES256, Ed25519 → EdDSA).
The card must be I-JSON (valid UTF-8, no duplicate member names), as verify
requires. See docs/trust.md.`)
	keyFile := pathString(fs, "key", "private key `file` (PEM, as written by keygen)")
	kid := nonEmptyString(fs, "kid", "key `id` (default: the kid of the matching key in the jwks.json beside the key file, as keygen wrote it, else the key's RFC 7638 thumbprint; not empty)")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.usageError(fs, "sign needs one CARD file, got %d arguments", len(pos))
	}
	if *keyFile == "" {
		return c.usageError(fs, "--key FILE is required")
	}
	card, err := readInputFile(pos[0], maxCardFileBytes, "an Adapter Card")
	if err != nil {
		return c.fail(err)
	}
	if len(bytes.TrimSpace(card)) == 0 {
		// Most likely `sign CARD > CARD`: the shell emptied it first.
		return c.fail(fmt.Errorf("%s is empty: no Adapter Card to sign (sign CARD > CARD empties CARD before sign reads it: write the signed card to another file, then rename it)", pos[0]))
	}
	if err := yamlDescription(pos[0], card); err != nil {
		return c.fail(err)
	}
	key, err := loadSigningKey(*keyFile, *kid)
	if err != nil {
		return c.fail(err)
	}
	if *kid != "" {
		// A kid other than the one keygen's jwks.json beside the key
		// gives it is signed as asked (it may be a hub's), but said: a
		// verifier with that jwks.json will not find the key.
		if tp, err := trust.Thumbprint(key.Key.Public()); err == nil {
			if besideKid, err := kidBeside(*keyFile, tp); err == nil && besideKid != "" && besideKid != *kid {
				fmt.Fprintf(c.stderr, "note: %s names this key %q, not %q: a card signed with --kid %q does not verify against it (leave --kid out to take its kid)\n",
					filepath.Join(filepath.Dir(*keyFile), "jwks.json"), besideKid, *kid, *kid)
			}
		}
	}
	// What verify parses: I-JSON (valid UTF-8, no duplicate member names,
	// numbers that fit a double), before anything re-encodes the card.
	// An old signature is dropped unread: it is replaced, so a draft's
	// placeholder there ("signature": {} or an empty key_id) is not
	// checked, as artifact pins are not.
	if card, err = trust.Unsigned(card); err != nil {
		return c.fail(fmt.Errorf("%s: %w", pos[0], err))
	}
	// sign writes artifact.sha256 and files itself (docs/trust.md): a
	// draft's placeholders there ("TODO") are not checked, only replaced.
	if card, err = trust.UnpinArtifact(card); err != nil {
		return c.fail(fmt.Errorf("%s: %w", pos[0], err))
	}
	if _, err := discovery.ParseCard(card, pos[0]); err != nil {
		return c.fail(err)
	}
	root, rel := cardRoot(pos[0], card)
	card, _, err = trust.PinArtifact(card, root, rel)
	if err != nil {
		return c.fail(fmt.Errorf("%s: %w", pos[0], err))
	}
	signed, err := trust.SignCard(card, key)
	if err != nil {
		return c.fail(err)
	}
	if _, err := c.stdout.Write(signed); err != nil {
		return c.fail(err)
	}
	return exitOK
}

// cardRoot is the folder the card's artifact.path and pinned files are
// relative to, and the card's path in it: the card's folder, or the
// package of a card in its aios/ folder (trust.CardRoot).
func cardRoot(path string, card []byte) (root, rel string) {
	art := ""
	if pin, err := trust.ArtifactOf(card); err == nil && pin != nil {
		art = pin.Path
	}
	return trust.CardRoot(path, art)
}

// yamlDescription says that path is a YAML description (tool.aios.yaml,
// seed 001 §6.1), which has no signature, when it is one: a JSON parser's
// complaint about its first byte does not tell.
func yamlDescription(path string, data []byte) error {
	ext := strings.ToLower(filepath.Ext(path))
	if (ext != ".yaml" && ext != ".yml") || bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return nil
	}
	return fmt.Errorf("%s is a YAML description (tool.aios.yaml), which cannot be signed: write it as an Adapter Card (adapter.json, seed 001 §2.2) and sign that", path)
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/trust"
)

func runVerify(c *cli, args []string) int {
	fs := c.flags("verify", "verify CARD [--jwks FILE | --jwks-url URL]", `
Verify an Adapter Card: its structure, its signature, and — when it pins an
artifact — the SHA-256 of that file and the pinned files beside it (in
the package, for a card in a package's aios/ folder). Keys come from --jwks (a JWKS
or single JWK file), --jwks-url, or else the trusted keys of the config
(discovery.keys). Prints "valid" with the key id and trust level and exits
0, or prints why the card is refused and exits 1; exits 3 ("unchecked")
when the key set could not be fetched, no verdict on the card.`)
	jwksFile := nonEmptyPathString(fs, "jwks", "JWKS `file` with the public key(s)")
	jwksURL := nonEmptyString(fs, "jwks-url", "JWKS `URL` with the public key(s)")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.usageError(fs, "verify needs one CARD file, got %d arguments", len(pos))
	}
	if *jwksFile != "" && *jwksURL != "" {
		return c.usageError(fs, "give --jwks or --jwks-url, not both")
	}
	if *jwksURL != "" {
		// A value that is no http(s) URL is a bad command line, not a
		// card whose key could not be found ("invalid: …", exit 1).
		if u, err := url.Parse(*jwksURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c.usageError(fs, "--jwks-url %q: want an http or https URL, e.g. https://example.org/.well-known/jwks.json", *jwksURL)
		}
	}
	// What it prints names the card's texts (its artifact path, what is
	// wrong in it) and the files beside it: a card being verified is not
	// yet trusted, so what a terminal acts on in them is escaped, as
	// inspect escapes a plugin's texts (a file named "x\x1b]0;…\a.js"
	// beside the card set the terminal's title).
	out, note := &termWriter{w: c.stdout}, &termWriter{w: c.stderr}
	data, err := readInputFile(pos[0], maxCardFileBytes, "an Adapter Card")
	if err != nil {
		return c.fail(err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		fmt.Fprintf(out, "invalid: %s is empty: no Adapter Card\n", pos[0])
		return exitFail
	}
	if err := yamlDescription(pos[0], data); err != nil {
		fmt.Fprintf(out, "invalid: %v\n", err)
		return exitFail
	}
	var keys *trust.KeyStore
	noKeys := false // neither flag nor discovery.keys gave any
	switch {
	case *jwksFile != "":
		kd, err := readInputFile(*jwksFile, maxKeyFileBytes, "a JWKS")
		if err != nil {
			return c.fail(err)
		}
		ks, err := trust.ParseJWKS(kd, abi.Verified, *jwksFile)
		if err != nil {
			return c.fail(err)
		}
		if len(ks) == 0 { // as discovery.keys refuses such a file
			return c.fail(fmt.Errorf("%s: the key set holds no keys", *jwksFile))
		}
		keys = trust.NewKeyStore(nil)
		keys.Add(ks...)
	case *jwksURL != "":
		keys = trust.NewKeyStore(&http.Client{Timeout: 10 * time.Second})
		keys.AddJWKSURL(*jwksURL, abi.Verified)
	default:
		cfg, err := c.config()
		if err != nil {
			return c.fail(err)
		}
		dc, err := discovery.LoadConfig(cfg)
		if err != nil {
			return c.fail(err)
		}
		base := ""
		if cfg.File != "" {
			base = filepath.Dir(cfg.File)
		}
		if keys, err = trust.LoadKeyConfigs(dc.Keys, base, nil); err != nil {
			// Said as run says it: the key path, which fail puts after
			// the file and line.
			return c.fail(fmt.Errorf("discovery.keys%w", err))
		}
		noKeys = len(dc.Keys) == 0
	}
	if _, err := discovery.ParseCard(data, pos[0]); err != nil {
		fmt.Fprintf(out, "invalid: %v\n", err)
		return exitFail
	}
	v, err := trust.VerifyCard(context.Background(), data, keys)
	if errors.Is(err, trust.ErrKeyFetch) {
		// A network failure, not a bad card: it said "invalid: …", exit
		// 1, which a script could not tell from a forged card (found by
		// p185; TestVerifyKeyFetchFailureIsNoVerdict).
		fmt.Fprintf(out, "unchecked: %s: %v\n", pos[0], err)
		return exitUnchecked
	}
	if err != nil {
		hint := ""
		if noKeys && errors.Is(err, trust.ErrUnknownKey) {
			hint = " (no keys were given: pass --jwks FILE or --jwks-url URL, or list keys under discovery.keys in the --config file)"
		}
		fmt.Fprintf(out, "invalid: %s: %v%s\n", pos[0], err, hint)
		return exitFail
	}
	root, rel := cardRoot(pos[0], data)
	if v.Artifact != nil {
		if err := v.Artifact.Check(root); err != nil {
			fmt.Fprintf(out, "invalid: %s: %v\n", pos[0], err)
			return exitFail
		}
		if c.pluginFolder(root) {
			// Discovery loads each file there as a unit of its own.
			fmt.Fprintf(out, "invalid: %s: a card at the top of a plugin folder cannot name an artifact, and discovery refuses it; put the card and %s in their own folder\n", pos[0], v.Artifact.Path)
			return exitFail
		}
	} else if art := c.unpinnedArtifact(root); art != "" {
		// Discovery refuses such a folder (run, list, mcp): verify says
		// so too rather than "valid".
		fmt.Fprintf(out, "invalid: %s: the card is signed but does not pin its artifact %s beside it, and discovery refuses the folder: add \"artifact\": {\"path\": %q} to the card and sign it again with `aios-host sign`, which pins the file and the code beside it\n",
			pos[0], art, art)
		return exitFail
	}
	fmt.Fprintf(out, "valid: %s signed with %s by key %q (%s", pos[0], v.Algorithm, v.KeyID, v.KeySource)
	if !v.KeyExpires.IsZero() {
		// The card stops verifying then: said now, not learned when
		// discovery refuses it (TestVerifySaysKeyExpiry).
		fmt.Fprintf(out, "; key expires %s", v.KeyExpires.UTC().Format(time.RFC3339))
	}
	fmt.Fprint(out, ")")
	if *jwksFile == "" && *jwksURL == "" {
		fmt.Fprintf(out, ", trust %s", v.Trust)
	}
	if v.Artifact != nil {
		fmt.Fprintf(out, "; artifact %s matches sha256 %s", v.Artifact.Path, v.Artifact.SHA256)
		// One file, one verb: "1 pinned files match" was said.
		switch n := len(v.Artifact.Files); {
		case n == 1:
			fmt.Fprint(out, ", and 1 pinned file matches")
		case n > 1:
			fmt.Fprintf(out, ", and %d pinned files match", n)
		}
	}
	fmt.Fprintln(out)
	if v.Artifact != nil {
		if extra, err := v.Artifact.Unpinned(root, rel); err == nil && len(extra) > 0 {
			files, them := fmt.Sprintf("%d files beside the card are not pinned", len(extra)), "them"
			if len(extra) == 1 {
				files, them = "1 file beside the card is not pinned", "it"
			}
			fmt.Fprintf(note, "note: %s, and the provider's runtime refuses to load %s: %s (sign the card again to pin %s)\n", files, them, strings.Join(extra, ", "), them)
		}
	}
	return exitOK
}

// termWriter writes each Write's text through termText.
type termWriter struct{ w io.Writer }

func (t *termWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, termText(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// unpinnedArtifact returns the artifact (relative to the provider folder
// dir) that discovery would load with a card in dir that pins none, or ""
// when there is none or dir is a plugin folder itself (whose files are
// units of their own beside a card at its top).
func (c *cli) unpinnedArtifact(dir string) string {
	if c.pluginFolder(dir) {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	art := discovery.ArtifactIn(abs, func(name string) bool { // as host.LoaderFor matches
		name = strings.ToLower(name)
		return !host.IsTypeDeclaration(name) && slices.ContainsFunc(pluginExtensions, func(e string) bool { return strings.HasSuffix(name, e) })
	})
	if art == "" {
		return ""
	}
	return filepath.Base(art)
}

// pluginFolder reports whether dir is one of the config's plugin folders
// (plugins, discovery.dirs), where discovery reads a card as a unit of its
// own rather than a provider folder's description.
func (c *cli) pluginFolder(dir string) bool {
	cfg, err := c.config()
	if err != nil {
		return false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	roots := slices.Clone(cfg.Plugins)
	if dc, err := discovery.LoadConfig(cfg); err == nil {
		roots = append(roots, dc.Dirs...)
	}
	for _, r := range roots {
		if ra, err := filepath.Abs(config.ExpandHome(r)); err == nil && ra == abs {
			return true
		}
	}
	return false
}

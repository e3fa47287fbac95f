package trust

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/fsperm"
	"github.com/aios-host/aios-host/internal/origin"
)

// Key is a trusted public key.
type Key struct {
	JWK   jose.JSONWebKey // public only
	Trust abi.TrustLevel
	// NotBefore and Expires bound the key's validity (zero = unbounded).
	// They come from the JWK's "nbf"/"exp" members (seconds since the
	// epoch) or from config, the stricter of the two.
	NotBefore, Expires time.Time
	// Source names where the key came from (file, URL, config entry).
	Source string

	now    func() time.Time
	fileOf *keyFile // the config's jwks file it was read from, if any
}

// usableFor checks that the key may verify a signature with alg; what
// names the signed thing in errors ("card", "token").
func (k *Key) usableFor(alg, what string) error {
	// RFC 9864 names EdDSA over Ed25519 "Ed25519": a key tagged so is for
	// the one algorithm cards call EdDSA (its key type is checked below).
	if ka := k.JWK.Algorithm; ka != "" && cardAlg(ka) != alg {
		return verr(ErrAlgorithm, "key %q (%s) is for alg %q but the %s is signed with %q", k.JWK.KeyID, k.Source, k.JWK.Algorithm, what, alg)
	}
	if k.JWK.Use != "" && k.JWK.Use != "sig" {
		return verr(ErrAlgorithm, "key %q (%s) has use %q, not sig", k.JWK.KeyID, k.Source, k.JWK.Use)
	}
	want, err := AlgorithmFor(k.JWK.Key)
	if err != nil {
		return verr(ErrAlgorithm, "key %q (%s): %v", k.JWK.KeyID, k.Source, err)
	}
	if string(want) != alg {
		return verr(ErrAlgorithm, "key %q (%s) is a %s key but the %s claims alg %q (algorithm confusion)", k.JWK.KeyID, k.Source, want, what, alg)
	}
	now := time.Now()
	if k.now != nil {
		now = k.now()
	}
	if !k.Expires.IsZero() && now.After(k.Expires) {
		return verr(ErrKeyExpired, "key %q (%s) expired at %s", k.JWK.KeyID, k.Source, k.Expires.UTC().Format(time.RFC3339))
	}
	if !k.NotBefore.IsZero() && now.Before(k.NotBefore) {
		e := verr(ErrKeyExpired, "key %q (%s) is not valid before %s", k.JWK.KeyID, k.Source, k.NotBefore.UTC().Format(time.RFC3339))
		e.Also = ErrKeyNotYetValid
		return e
	}
	return nil
}

// ParseJWKS reads a JSON Web Key Set ({"keys": [...]}) or a single JWK.
// Private members are dropped; symmetric keys are refused, since a card can
// only be verified with a public key. A key without "kid" gets its RFC 7638
// thumbprint (base64url SHA-256) as kid.
//
// A member of a set that cannot verify cards (a symmetric key, a curve or
// key type other than RSA ≥ 2048 bits, P-256 and Ed25519, a malformed
// JWK) is left out, as RFC 7517 §5 asks: a set that also holds
// encryption or other keys still gives its signing keys. A set of which
// no member can verify cards, and a single JWK that cannot, are errors
// saying why.
func ParseJWKS(data []byte, trust abi.TrustLevel, source string) ([]*Key, error) {
	keys, skipped, err := parseJWKSet(data, trust, source)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 && len(skipped) > 0 {
		return nil, fmt.Errorf("%s: no key can verify cards: %s", source, strings.Join(skipped, "; "))
	}
	return keys, nil
}

// parseJWKSet is ParseJWKS; skipped says which members of a set were left
// out and why.
func parseJWKSet(data []byte, trust abi.TrustLevel, source string) (keys []*Key, skipped []string, err error) {
	// The shape is said in words: encoding/json's errors name Go types
	// ("cannot unmarshal array into Go value of type struct { Keys …").
	const shape = `want a JWKS, {"keys": [JWK, …]}, or a single JWK object`
	// A PEM file (a public key, or keygen's private.pem given for its
	// jwks.json) fails JSON at its first dash; say what it is.
	if block, _ := pem.Decode(data); block != nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("-----BEGIN ")) {
		hint := "give the public key as " + strings.TrimPrefix(shape, "want ")
		if strings.Contains(block.Type, "PRIVATE") {
			hint = "a private key must not be listed; give its public key as a JWKS (aios-host keygen writes jwks.json beside private.pem)"
		}
		return nil, nil, fmt.Errorf("%s: not a JWKS: the file is PEM (%q); %s", source, block.Type, hint)
	}
	// A file saved by an editor that starts UTF-8 with a byte order mark
	// failed as "invalid character 'ï' looking for beginning of value".
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, nil, fmt.Errorf("%s: not a JWKS: it starts with a UTF-8 byte order mark (EF BB BF): save it without one", source)
	}
	var set struct {
		Keys json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return nil, nil, fmt.Errorf("%s: not a JWKS: the document is a JSON %s; %s", source, te.Value, shape)
		}
		return nil, nil, fmt.Errorf("%s: not a JWKS: %w", source, err)
	}
	if set.Keys == nil { // a single JWK
		k, err := parseJWK(data, trust, source)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", source, err)
		}
		return []*Key{k}, nil, nil
	}
	var members []json.RawMessage
	if err := json.Unmarshal(set.Keys, &members); err != nil || members == nil {
		return nil, nil, fmt.Errorf("%s: not a JWKS: its \"keys\" is %s, not an array of JWKs; %s", source, jsonKind(set.Keys), shape)
	}
	keys = make([]*Key, 0, len(members))
	for i, raw := range members {
		k, err := parseJWK(raw, trust, source)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("key %d left out: %v", i, err))
			continue
		}
		keys = append(keys, k)
	}
	return keys, skipped, nil
}

// jsonKind names the kind of the JSON value raw ("an object", "null").
func jsonKind(raw []byte) string {
	switch t := strings.TrimSpace(string(raw)); {
	case t == "null":
		return "null"
	case strings.HasPrefix(t, "{"):
		return "an object"
	case strings.HasPrefix(t, "["):
		return "an array"
	case strings.HasPrefix(t, `"`):
		return "a string"
	case t == "true" || t == "false":
		return "a boolean"
	}
	return "a number"
}

// jwkStringMembers are the members of a JWK that go-jose reads as
// strings (RFC 7517 §4, RFC 7518 §6; "pub" and "priv" of RFC 9964).
var jwkStringMembers = []string{"kty", "use", "kid", "crv", "alg", "k", "x", "y", "n", "e", "pub", "priv", "d", "p", "q", "dp", "dq", "qi", "x5u", "x5t", "x5t#S256"}

// checkJWKShape says which member of a JWK has the wrong JSON type, and
// whether the JWK is an object at all: go-jose's error for it names a Go
// type and not the member ("json: cannot unmarshal number into Go value of
// type string"). null is left to go-jose, which reads it as absent.
func checkJWKShape(raw []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return fmt.Errorf("a JWK must be a JSON object, not %s", jsonKind(raw))
		}
		return err
	}
	for _, name := range jwkStringMembers {
		if v, ok := members[name]; ok && string(v) != "null" && !bytes.HasPrefix(v, []byte(`"`)) {
			return fmt.Errorf("member %q is %s, not a string", name, jsonKind(v))
		}
	}
	// exp and nbf are read here (seconds since the epoch) and key_ops
	// too: their errors named Go types as well ("exp/nbf must be
	// numbers …: json: cannot unmarshal string into Go struct field .exp
	// of type float64"), and a YAML config's inline jwk writes an
	// unquoted date as a string.
	for _, name := range []string{"exp", "nbf"} {
		if v, ok := members[name]; ok && string(v) != "null" && jsonKind(v) != "a number" {
			return fmt.Errorf("member %q is %s, not a number (seconds since the epoch, as a JWT's %s)", name, jsonKind(v), name)
		}
	}
	if v, ok := members["key_ops"]; ok && string(v) != "null" {
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) != nil {
			return fmt.Errorf("member \"key_ops\" is %s, not an array of strings", jsonKind(v))
		}
		for _, e := range elems {
			if !bytes.HasPrefix(e, []byte(`"`)) {
				return fmt.Errorf("member \"key_ops\" is an array holding %s, not an array of strings", jsonKind(e))
			}
		}
	}
	if v, ok := members["x5c"]; ok && string(v) != "null" {
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) != nil {
			return fmt.Errorf("member \"x5c\" is %s, not an array of strings", jsonKind(v))
		}
		for _, e := range elems {
			if !bytes.HasPrefix(e, []byte(`"`)) {
				return fmt.Errorf("member \"x5c\" is an array holding %s, not an array of strings", jsonKind(e))
			}
		}
	}
	return nil
}

func parseJWK(raw []byte, trust abi.TrustLevel, source string) (*Key, error) {
	if err := checkJWKShape(raw); err != nil {
		return nil, err
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(raw); err != nil {
		// go-jose's "unsupported key type, format, curve, or RSA
		// modulus size" names neither: say the key's kty and curve.
		var kc struct {
			Kty string `json:"kty"`
			Crv string `json:"crv"`
		}
		_ = json.Unmarshal(raw, &kc)
		known := map[string][]string{"RSA": nil, "oct": nil, "EC": {"P-256", "P-384", "P-521"}, "OKP": {"Ed25519"}}
		curves, ok := known[kc.Kty]
		if kc.Kty != "" && (!ok || curves != nil && !slices.Contains(curves, kc.Crv)) {
			what := fmt.Sprintf("kty %q", kc.Kty)
			if kc.Crv != "" {
				what += fmt.Sprintf(" on curve %q", kc.Crv)
			}
			return nil, fmt.Errorf("a key of %s cannot verify cards (want RSA of 2048 bits or more, EC on P-256 or OKP Ed25519)", what)
		}
		return nil, err
	}
	var times struct {
		Exp *float64 `json:"exp"`
		Nbf *float64 `json:"nbf"`
	}
	if err := json.Unmarshal(raw, &times); err != nil {
		return nil, fmt.Errorf("exp/nbf must be numbers (seconds since the epoch): %w", err)
	}
	// "key_ops" says what the key is for as "use" does (RFC 7517 §4.3),
	// which go-jose does not read: a key not for "verify" (an encryption
	// key, ["encrypt", "wrapKey"]) must not verify cards.
	var ops struct {
		KeyOps *[]string `json:"key_ops"`
	}
	if err := json.Unmarshal(raw, &ops); err != nil {
		return nil, fmt.Errorf("key_ops must be an array of strings: %w", err)
	}
	if ops.KeyOps != nil && !slices.Contains(*ops.KeyOps, "verify") {
		return nil, fmt.Errorf("key_ops %q does not include \"verify\": the key is not for verifying signatures", *ops.KeyOps)
	}
	if _, ok := jwk.Key.([]byte); ok {
		return nil, errors.New("symmetric (oct) keys cannot verify cards; give a public key")
	}
	pub := jwk.Public()
	if !pub.Valid() {
		return nil, errors.New("invalid public key")
	}
	if _, err := AlgorithmFor(pub.Key); err != nil {
		return nil, err
	}
	if pub.KeyID == "" {
		kid, err := Thumbprint(pub.Key)
		if err != nil {
			return nil, err
		}
		pub.KeyID = kid
	}
	k := &Key{JWK: pub, Trust: trust, Source: source}
	if times.Exp != nil {
		k.Expires = unixTime(*times.Exp)
	}
	if times.Nbf != nil {
		k.NotBefore = unixTime(*times.Nbf)
	}
	return k, nil
}

// unixTime is secs seconds since the epoch, clamped to ±2^53 s (±285
// million years): a float beyond int64 would convert to the far past,
// making an nbf far in the future no bound at all.
func unixTime(secs float64) time.Time {
	const bound = 1 << 53
	return time.Unix(int64(max(-bound, min(bound, secs))), 0)
}

// Thumbprint is the RFC 7638 SHA-256 thumbprint of a public key, base64url.
func Thumbprint(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case *rsa.PrivateKey:
		pub = &k.PublicKey
	case *ecdsa.PrivateKey:
		pub = &k.PublicKey
	case ed25519.PrivateKey:
		pub = k.Public()
	}
	j := jose.JSONWebKey{Key: pub}
	tp, err := j.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(tp), nil
}

// KeyConfig is one entry of the trusted key list in config (the `keys:`
// list of the discovery section). Exactly one of JWKS, JWKSURL or JWK is set.
type KeyConfig struct {
	// Trust is System, Verified or Community.
	Trust string `yaml:"trust" json:"trust"`
	// JWKS is a JWKS (or single JWK) file; relative to the config file.
	JWKS string `yaml:"jwks,omitempty" json:"jwks,omitempty"`
	// JWKSURL is fetched over HTTP(S) on demand and cached.
	JWKSURL string `yaml:"jwks_url,omitempty" json:"jwks_url,omitempty"`
	// JWK is an inline public key.
	JWK map[string]any `yaml:"jwk,omitempty" json:"jwk,omitempty"`
	// KeyID, when set, keeps only the key with this kid.
	KeyID string `yaml:"kid,omitempty" json:"kid,omitempty"`
	// NotBefore / Expires (RFC 3339) narrow the keys' validity.
	NotBefore string `yaml:"not_before,omitempty" json:"not_before,omitempty"`
	Expires   string `yaml:"expires,omitempty" json:"expires,omitempty"`
}

// KeyStore maps key ids to trusted keys. It is safe for concurrent use.
type KeyStore struct {
	mu     sync.RWMutex
	static map[string][]*Key
	urls   []*jwksURL
	// files are the config's jwks files, read again by ReloadFiles; their
	// keys are in static, each Key's fileOf being its file.
	files    []*keyFile
	reloadMu sync.Mutex // one ReloadFiles at a time: it updates files' stamps
	client   *http.Client
	now      func() time.Time
	// TTL is how long a fetched JWKS is fresh; MinRefetch bounds refetches
	// triggered by unknown kids. MaxStale is how long the keys of a JWKS
	// stay trusted while refetching it fails: a key its owner removed
	// (revoked) must not verify for ever because the URL went down.
	TTL, MinRefetch, MaxStale time.Duration
}

type jwksURL struct {
	url     string
	trust   abi.TrustLevel
	kid     string
	nbf     time.Time
	exp     time.Time
	mu      sync.Mutex
	keys    []*Key
	fetched time.Time
	tried   time.Time
	// lastErr is why the last fetch failed (nil after a good one): a
	// look within MinRefetch of it, which fetches nothing, says so too.
	lastErr error
	// version counts the changes of keys since the first good fetch,
	// whoever fetched them (setKeys); polled and polledStale are what
	// RefreshURLs last reported, so that it reports each change once.
	version, polled uint64
	polledStale     bool
}

// setKeys takes the keys of a good fetch at now; u.mu is held.
func (u *jwksURL) setKeys(keys []*Key, now time.Time) {
	if !u.fetched.IsZero() && !sameKeySet(u.keys, keys) {
		u.version++
	}
	u.keys, u.fetched = keys, now
}

// NewKeyStore returns an empty store. client may be nil (a client with a
// 5 s timeout is used).
func NewKeyStore(client *http.Client) *KeyStore {
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	return &KeyStore{static: map[string][]*Key{}, client: noPlainHTTPRedirects(client), TTL: 10 * time.Minute, MinRefetch: 30 * time.Second, MaxStale: 24 * time.Hour}
}

// noPlainHTTPRedirects is hc refusing a redirect of a JWKS fetch to plain
// http on another machine, unless the jwks_url itself is such a URL (taken,
// and warned of at start): whoever is on the network path could answer
// with keys of their own, and an https jwks_url redirected there was
// followed without a word, its keys trusted as the https URL's.
func noPlainHTTPRedirects(hc *http.Client) *http.Client {
	own := *hc
	next := hc.CheckRedirect
	own.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from := via[0].URL; plainHTTPRemote(req.URL) && !plainHTTPRemote(from) {
			return fmt.Errorf("JWKS %s redirected to %s, plain http to another machine: refused (whoever is on the network path could answer with keys of their own; have the key set served over https, or give its URL as jwks_url)", from.Redacted(), req.URL.Redacted())
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &own
}

// plainHTTPRemote says whether u is a plain http URL to a host other than
// a loopback one.
func plainHTTPRemote(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, "http") && !origin.LoopbackHost(u.Host)
}

// SetClock replaces the clock (tests).
func (s *KeyStore) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
	for _, ks := range s.static {
		for _, k := range ks {
			k.now = now
		}
	}
}

func (s *KeyStore) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// Add puts keys into the store.
func (s *KeyStore) Add(keys ...*Key) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		k.now = s.now
		s.static[k.JWK.KeyID] = append(s.static[k.JWK.KeyID], k)
	}
}

// AddJWKSURL registers a JWKS endpoint fetched on demand.
func (s *KeyStore) AddJWKSURL(url string, trust abi.TrustLevel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.urls = append(s.urls, &jwksURL{url: url, trust: trust})
}

// Keys returns every static key (for publishing a JWKS).
func (s *KeyStore) Keys() []*Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*Key
	for _, ks := range s.static {
		out = append(out, ks...)
	}
	return out
}

// Lookup implements KeyResolver: static keys first, then JWKS URLs (fetched
// when stale, or when the kid is unknown and MinRefetch has passed).
func (s *KeyStore) Lookup(ctx context.Context, kid string) ([]*Key, error) {
	s.mu.RLock()
	out := append([]*Key(nil), s.static[kid]...)
	urls := s.urls
	held := ""
	if len(out) == 0 {
		held = s.staticSummary()
	}
	s.mu.RUnlock()
	var fetchErr error
	var looked, keptTo []string
	for _, u := range urls {
		if u.kid != "" && u.kid != kid {
			// The entry keeps another key of its set only: said, or
			// a card signed with a key rotated in at the URL read
			// as if no keys were configured.
			keptTo = append(keptTo, fmt.Sprintf("jwks_url %s is kept to key id %q", u.url, u.kid))
			continue
		}
		looked = append(looked, u.url)
		ks, err := s.fromURL(ctx, u, kid)
		if err != nil {
			fetchErr = err
		}
		out = append(out, ks...)
	}
	if len(out) == 0 && fetchErr != nil {
		e := verr(ErrUnknownKey, "key %q: not in the key store and %v", kid, fetchErr)
		e.Also = ErrKeyFetch
		return nil, e
	}
	if len(out) == 0 && len(looked) == 0 && (held != "" || len(keptTo) > 0) {
		// Say where it looked: a wrong key file and a card signed
		// with a key rotated out read the same otherwise.
		return nil, verr(ErrUnknownKey, "no trusted key has key id %q (%s)", kid, strings.Join(slices.DeleteFunc(append([]string{held}, keptTo...), func(s string) bool { return s == "" }), "; "))
	}
	if len(out) == 0 && len(looked) > 0 {
		// A key set fetched from a URL may list the key later (a key
		// rotated in, a card that came before its key was published).
		// Named with the key ids each holds, as key files are; the
		// config's keys only when there are some (verify --jwks-url
		// has none).
		var fetched []*Key
		for _, u := range urls {
			if u.kid == "" || u.kid == kid {
				u.mu.Lock()
				fetched = append(fetched, u.keys...)
				u.mu.Unlock()
			}
		}
		where := "in the JWKS of " + strings.Join(looked, ", ") + " as last fetched"
		if sum := keySummary(fetched); sum != "" {
			where += " (" + sum + ")"
		}
		if held != "" {
			where = "in the config's keys (" + held + ") nor " + where
		}
		kept := ""
		if len(keptTo) > 0 {
			kept = "; " + strings.Join(keptTo, "; ")
		}
		e := verr(ErrUnknownKey, "no trusted key has key id %q: not %s (a key published there later is found on a later look)%s", kid, where, kept)
		e.Also = ErrKeyNotPublished
		return nil, e
	}
	return out, nil
}

// staticSummary names the sources of the static keys with their key
// ids, a few of each, for an error; s.mu is held.
func (s *KeyStore) staticSummary() string {
	var all []*Key
	for _, ks := range s.static {
		all = append(all, ks...)
	}
	return keySummary(all)
}

// keySummary names the sources of keys with their key ids, a few of each,
// for an error ("keys/jwks.json has \"a\", \"b\"").
func keySummary(keys []*Key) string {
	bySource := map[string][]string{}
	for _, k := range keys {
		if kid := k.JWK.KeyID; !slices.Contains(bySource[k.Source], kid) {
			bySource[k.Source] = append(bySource[k.Source], kid)
		}
	}
	const most = 5
	var parts []string
	for _, src := range slices.Sorted(maps.Keys(bySource)) {
		kids := bySource[src]
		slices.Sort(kids)
		quoted := make([]string, 0, most)
		for _, kid := range kids[:min(len(kids), most)] {
			quoted = append(quoted, strconv.Quote(kid))
		}
		if len(kids) > most {
			quoted = append(quoted, fmt.Sprintf("and %d more", len(kids)-most))
		}
		parts = append(parts, fmt.Sprintf("%s has %s", src, strings.Join(quoted, ", ")))
	}
	if len(parts) > most {
		parts = append(parts[:most], fmt.Sprintf("and %d more key sources", len(parts)-most))
	}
	return strings.Join(parts, "; ")
}

func (s *KeyStore) fromURL(ctx context.Context, u *jwksURL, kid string) ([]*Key, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	now := s.clock()
	has := func() bool {
		for _, k := range u.keys {
			if k.JWK.KeyID == kid {
				return true
			}
		}
		return false
	}
	stale := now.Sub(u.fetched) > s.TTL
	var err error
	switch {
	case (stale || !has()) && now.Sub(u.tried) >= s.MinRefetch:
		u.tried = now
		var keys []*Key
		if keys, err = s.fetch(ctx, u); err == nil {
			u.setKeys(keys, now)
		}
		u.lastErr = err
	case stale || !has():
		// The fetch this look needs is not made again yet, and the
		// last one failed: that is why the key is not here. A second
		// card was refused as "not in the JWKS as last fetched" (a key
		// not published, ErrKeyNotPublished) for a set never fetched.
		err = u.lastErr
	}
	if s.MaxStale > 0 && !u.fetched.IsZero() && now.Sub(u.fetched) > s.MaxStale {
		// The last good fetch is too old to trust (err says why the
		// refetch failed, or none was allowed yet within MinRefetch).
		why := "no refetch yet"
		if err != nil {
			why = err.Error()
		}
		return nil, fmt.Errorf("JWKS %s: its keys were fetched at %s, more than %s ago, and could not be fetched since (%s)", u.url, u.fetched.UTC().Format(time.RFC3339), s.MaxStale, why)
	}
	var out []*Key
	for _, k := range u.keys {
		if k.JWK.KeyID == kid {
			out = append(out, k)
		}
	}
	return out, err
}

// HasURLs reports whether the store has JWKS URLs.
func (s *KeyStore) HasURLs() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.urls) > 0
}

// RefreshURLs fetches again each JWKS URL fetched before whose keys are
// older than TTL (unless one was tried within MinRefetch), and reports
// whether, since its last call, the keys of any of them changed (a key
// removed, rotated, added, given other validity; fetched by this call or
// by the lookup of a card) or became too old to trust (MaxStale passed
// while fetching fails), or trusted again. A URL is otherwise fetched
// only when a card is looked at: a key its owner removed kept vouching
// for the providers loaded under it for as long as nothing looked at
// them again. The errors are the fetches' that failed.
func (s *KeyStore) RefreshURLs(ctx context.Context) (changed bool, err error) {
	s.mu.RLock()
	urls := s.urls
	s.mu.RUnlock()
	var errs []error
	for _, u := range urls {
		u.mu.Lock()
		now := s.clock()
		if u.fetched.IsZero() && u.tried.IsZero() {
			u.mu.Unlock()
			continue // never looked at: nothing was verified with it
		}
		if now.Sub(u.fetched) > s.TTL && now.Sub(u.tried) >= s.MinRefetch {
			u.tried = now
			keys, e := s.fetch(ctx, u)
			u.lastErr = e
			if e == nil {
				u.setKeys(keys, now)
			} else {
				errs = append(errs, e)
			}
		}
		stale := s.MaxStale > 0 && !u.fetched.IsZero() && now.Sub(u.fetched) > s.MaxStale
		if u.version != u.polled || stale != u.polledStale {
			changed = true
		}
		u.polled, u.polledStale = u.version, stale
		u.mu.Unlock()
	}
	return changed, errors.Join(errs...)
}

// sameKeySet reports whether a and b hold the same keys (kid, material
// and validity), in any order.
func sameKeySet(a, b []*Key) bool {
	if len(a) != len(b) {
		return false
	}
	for _, ka := range a {
		if !slices.ContainsFunc(b, func(kb *Key) bool {
			return ka.JWK.KeyID == kb.JWK.KeyID && sameKey(ka.JWK.Key, kb.JWK.Key) &&
				ka.NotBefore.Equal(kb.NotBefore) && ka.Expires.Equal(kb.Expires)
		}) {
			return false
		}
	}
	return true
}

// refetchKid fetches again each JWKS URL whose keys as last fetched hold
// kid, unless one was tried within MinRefetch, and reports whether the
// keys of kid there changed (VerifyCard: a key rotated under the same kid).
func (s *KeyStore) refetchKid(ctx context.Context, kid string) bool {
	s.mu.RLock()
	urls := s.urls
	s.mu.RUnlock()
	changed := false
	for _, u := range urls {
		if u.kid != "" && u.kid != kid {
			continue
		}
		u.mu.Lock()
		now := s.clock()
		old := keysOf(u.keys, kid)
		if len(old) > 0 && now.Sub(u.tried) >= s.MinRefetch {
			u.tried = now
			keys, err := s.fetch(ctx, u)
			if err == nil {
				u.setKeys(keys, now)
			}
			u.lastErr = err
			changed = changed || err == nil && !slices.EqualFunc(old, keysOf(keys, kid), func(a, b *Key) bool {
				return sameKey(a.JWK.Key, b.JWK.Key)
			})
		}
		u.mu.Unlock()
	}
	return changed
}

// keysOf is keys' keys of kid.
func keysOf(keys []*Key, kid string) []*Key {
	var out []*Key
	for _, k := range keys {
		if k.JWK.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}

// sameKey reports whether two public keys are the same key.
func sameKey(a, b any) bool {
	ka, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && ka.Equal(b)
}

// maxJWKSBytes bounds a fetched JWKS.
const maxJWKSBytes = 1 << 20

func (s *KeyStore) fetch(ctx context.Context, u *jwksURL) ([]*Key, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.url, nil)
	if err != nil {
		return nil, fmt.Errorf("JWKS URL %s: %w", u.url, err)
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching JWKS %s: %w", u.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching JWKS %s: HTTP %s", u.url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetching JWKS %s: %w", u.url, err)
	}
	if len(body) > maxJWKSBytes {
		return nil, fmt.Errorf("JWKS %s is larger than %d bytes", u.url, maxJWKSBytes)
	}
	keys, err := ParseJWKS(body, u.trust, u.url)
	if err != nil {
		return nil, err
	}
	keys = filterKeys(keys, u.kid, u.nbf, u.exp)
	for _, k := range keys {
		k.now = s.now
	}
	return keys, nil
}

func filterKeys(keys []*Key, kid string, nbf, exp time.Time) []*Key {
	out := keys[:0]
	for _, k := range keys {
		if kid != "" && k.JWK.KeyID != kid {
			continue
		}
		if !nbf.IsZero() && (k.NotBefore.IsZero() || nbf.After(k.NotBefore)) {
			k.NotBefore = nbf
		}
		if !exp.IsZero() && (k.Expires.IsZero() || exp.Before(k.Expires)) {
			k.Expires = exp
		}
		out = append(out, k)
	}
	return out
}

// keyFile is a jwks file of the config, as its entry narrows it.
type keyFile struct {
	path     string
	trust    abi.TrustLevel
	kid      string
	nbf, exp time.Time
	stamp    string // the digest of its content when last read, "" after a refusal
}

// read reads the file's keys with the checks the config gets: the file is
// safe from other accounts, regular, at most maxJWKSBytes, and keeps at
// least one key that can verify cards. It returns them with the digest of
// the content read.
func (kf *keyFile) read() ([]*Key, string, error) {
	path := kf.path
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", err
	}
	// Whoever can write the file chooses which signatures count.
	if err := fsperm.OwnedSafely(path, st); err != nil {
		return nil, "", fmt.Errorf("key file %s is not safe: %v: another account could add a key and sign cards with it (chmod go-w, or chown it to this user)", path, err)
	}
	// Not a FIFO or a device: reading one would wait for a writer
	// forever (the host hung at start) or never end.
	if !st.Mode().IsRegular() {
		return nil, "", fmt.Errorf("key file %s is not a regular file (%s)", path, fsperm.Kind(st.Mode()))
	}
	if st.Size() > maxJWKSBytes {
		return nil, "", fmt.Errorf("key file %s is larger than %d bytes: not a key set (check the path)", path, maxJWKSBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxJWKSBytes+1))
	f.Close()
	if err != nil {
		return nil, "", err
	}
	if len(data) > maxJWKSBytes {
		return nil, "", fmt.Errorf("key file %s is larger than %d bytes: not a key set (check the path)", path, maxJWKSBytes)
	}
	keys, skipped, err := parseJWKSet(data, kf.trust, path)
	if err != nil {
		return nil, "", err
	}
	keys = filterKeys(keys, kf.kid, kf.nbf, kf.exp)
	if len(keys) == 0 {
		why := ""
		if len(skipped) > 0 {
			why = " (" + strings.Join(skipped, "; ") + ")"
		}
		if kf.kid == "" {
			return nil, "", fmt.Errorf("%s: no key can verify cards%s", path, why)
		}
		return nil, "", fmt.Errorf("%s has no key with kid %q that can verify cards%s", path, kf.kid, why)
	}
	sum := sha256.Sum256(data)
	return keys, string(sum[:]), nil
}

// HasFiles reports whether the store holds keys of jwks files, which
// ReloadFiles reads again.
func (s *KeyStore) HasFiles() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.files) > 0
}

// ReloadFiles reads again each jwks file of the config and, when its
// content changed since it was read, replaces its keys: a key
// its owner removed from the file (revoked, rotated out) stops verifying,
// one added starts, without a restart. A file that can no longer be read
// or is refused (gone, unsafe, no key left) trusts nothing until it is
// mended: its keys are dropped and the error, naming the file, returned
// (fail closed: a file half written is refused, and read again at the
// next call). changed reports whether any key came or went.
func (s *KeyStore) ReloadFiles() (changed bool, err error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	s.mu.RLock()
	files := slices.Clone(s.files)
	s.mu.RUnlock()
	var errs []error
	fresh := map[*keyFile][]*Key{}
	for _, kf := range files {
		keys, stamp, e := kf.read()
		switch {
		case e != nil:
			errs = append(errs, e)
			if kf.stamp == "" {
				continue // refused at the last look too: nothing to drop
			}
		case stamp == kf.stamp:
			continue
		}
		fresh[kf] = keys
		kf.stamp = stamp // "" after a refusal: read again next time
	}
	if len(fresh) == 0 {
		return false, errors.Join(errs...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for kf, keys := range fresh {
		for kid, ks := range s.static {
			kept := slices.DeleteFunc(slices.Clone(ks), func(k *Key) bool { return k.fileOf == kf })
			if len(kept) == 0 {
				delete(s.static, kid)
			} else {
				s.static[kid] = kept
			}
		}
		for _, k := range keys {
			k.now, k.fileOf = s.now, kf
			s.static[k.JWK.KeyID] = append(s.static[k.JWK.KeyID], k)
		}
	}
	return true, errors.Join(errs...)
}

// LoadKeyConfigs builds a store from config entries; relative file paths
// are resolved against baseDir. An error starts with the entry's index as
// the config counts it, "[0]: ", to follow its key path
// ("discovery.keys[0]: …").
func LoadKeyConfigs(entries []KeyConfig, baseDir string, client *http.Client) (*KeyStore, error) {
	s := NewKeyStore(client)
	for i, e := range entries {
		if err := s.addConfig(e, baseDir); err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return s, nil
}

func (s *KeyStore) addConfig(e KeyConfig, baseDir string) error {
	trust, err := abi.ParseTrustLevel(e.Trust)
	if err != nil {
		return err
	}
	if trust == abi.Untrusted {
		return errors.New("trust must be System, Verified or Community (an Untrusted key proves nothing)")
	}
	var nbf, exp time.Time
	if e.NotBefore != "" {
		if nbf, err = time.Parse(time.RFC3339, e.NotBefore); err != nil {
			return fmt.Errorf("not_before: %w", err)
		}
	}
	if e.Expires != "" {
		if exp, err = time.Parse(time.RFC3339, e.Expires); err != nil {
			return fmt.Errorf("expires: %w", err)
		}
	}
	if !nbf.IsZero() && !exp.IsZero() && !exp.After(nbf) {
		return fmt.Errorf("expires %s is not after not_before %s: the key would never be valid (are the two swapped?)", e.Expires, e.NotBefore)
	}
	n := 0
	for _, set := range []bool{e.JWKS != "", e.JWKSURL != "", e.JWK != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return errors.New("give exactly one of jwks (file), jwks_url or jwk (inline)")
	}
	switch {
	case e.JWKSURL != "":
		// A file path or file:// URL here is fetched as nothing: say so
		// now, not at each card signed by its keys.
		if u, err := url.Parse(e.JWKSURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("jwks_url %q is not an http or https URL such as https://hub.example/.well-known/jwks.json (a key set in a file is jwks: FILE)", e.JWKSURL)
		}
		s.mu.Lock()
		s.urls = append(s.urls, &jwksURL{url: e.JWKSURL, trust: trust, kid: e.KeyID, nbf: nbf, exp: exp})
		s.mu.Unlock()
		return nil
	case e.JWKS != "":
		path := e.JWKS
		if !filepath.IsAbs(path) && baseDir != "" {
			path = filepath.Join(baseDir, path)
		}
		kf := &keyFile{path: path, trust: trust, kid: e.KeyID, nbf: nbf, exp: exp}
		keys, stamp, err := kf.read()
		if err != nil {
			return err
		}
		kf.stamp = stamp
		for _, k := range keys {
			k.fileOf = kf
		}
		s.mu.Lock()
		s.files = append(s.files, kf)
		s.mu.Unlock()
		s.Add(keys...)
	default:
		raw, err := json.Marshal(e.JWK)
		if err != nil {
			return err
		}
		k, err := parseJWK(raw, trust, "config")
		if err != nil {
			return fmt.Errorf("inline jwk: %w", err)
		}
		if e.KeyID != "" && k.JWK.KeyID != e.KeyID {
			// As for a jwks file: a kid that keeps no key trusts nothing.
			return fmt.Errorf("inline jwk has kid %q, not the entry's kid %q: give the jwk its kid (\"kid\": %q inside jwk) or drop the entry's", k.JWK.KeyID, e.KeyID, e.KeyID)
		}
		s.Add(filterKeys([]*Key{k}, e.KeyID, nbf, exp)...)
	}
	return nil
}

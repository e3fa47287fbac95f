package trust

import (
	"bytes"
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-jose/go-jose/v4"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/fsperm"
)

// Card signature format
//
// A signed Adapter Card carries a top-level member
//
//	"signature": {"algorithm": "ES256", "key_id": "<kid>", "value": "<JWS>"}
//
// value is a JWS in compact serialization with a DETACHED payload (RFC 7515
// Appendix F): "<protected header>..<signature>", both base64url. The payload
// that was signed is the RFC 8785 canonical form (Canonicalize) of the whole
// card with its top-level "signature" member removed (or, seed 001 §4.2's
// form, SeedPayload of it). The protected header
// holds {"alg": algorithm, "kid": key_id, "typ": "aios-adapter+jws"}; alg and
// kid must equal the signature member's algorithm and key_id.
//
// Only RS256, ES256 (P-256) and EdDSA (Ed25519) are accepted. "none", every
// HMAC algorithm and any alg that does not fit the key's type are refused.

// Signature is a card's "signature" member.
type Signature struct {
	Algorithm string `json:"algorithm"`
	KeyID     string `json:"key_id"`
	Value     string `json:"value"`
}

// ArtifactPin is a card's "artifact" member: the file (relative to the
// card's folder) whose code the card describes, and its SHA-256 digest as 64
// lower-case hex digits. Because it is part of the signed payload, a valid
// signature also vouches for the code.
//
// Files pins the other files of the card's folder that the artifact may
// load (a JS file's relative imports, a Python file's local modules, a
// tsconfig.json), by path relative to the folder. A runtime refuses to
// load a file of a signed provider's folder that is not pinned here or
// whose digest differs. `aios-host sign` pins every file of the folder of
// PinnedExtensions but Adapter Cards and hidden or __pycache__ entries.
type ArtifactPin struct {
	Path   string            `json:"path"`
	SHA256 string            `json:"sha256"`
	Files  map[string]string `json:"files,omitempty"`
}

// JWSType is the "typ" header of a card signature.
const JWSType = "aios-adapter+jws"

// Algorithms returns the algorithms accepted for card signatures.
func Algorithms() []jose.SignatureAlgorithm {
	return []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA}
}

// CardAlgorithm reports whether a card's signature member may name alg:
// one of Algorithms, or "Ed25519", RFC 9864's name for EdDSA over Ed25519.
func CardAlgorithm(alg string) bool {
	return slices.Contains(Algorithms(), jose.SignatureAlgorithm(cardAlg(alg)))
}

// Sentinel errors; a *VerifyError wraps one of them (errors.Is works).
var (
	ErrUnsigned   = errors.New("card is not signed")
	ErrMalformed  = errors.New("malformed card signature")
	ErrAlgorithm  = errors.New("signature algorithm refused")
	ErrUnknownKey = errors.New("unknown signing key")
	ErrKeyExpired = errors.New("signing key expired or not yet valid")
	// ErrKeyFetch comes with ErrUnknownKey when the key may be in a JWKS
	// URL that could not be fetched (the network or the hub is down):
	// trying again later may succeed.
	ErrKeyFetch = errors.New("key set could not be fetched")
	// ErrKeyNotPublished comes with ErrUnknownKey when no key has the
	// kid but a JWKS URL that may list it later was looked in: a key
	// rotated in may be published after the card signed with it.
	ErrKeyNotPublished = errors.New("key not in the key sets fetched")
	// ErrKeyNotYetValid comes with ErrKeyExpired when the key's nbf or
	// not_before is still ahead: the card verifies from then on.
	ErrKeyNotYetValid = errors.New("key not valid yet")
	ErrTampered       = errors.New("signature does not match the card (tampered card or wrong key)")
	ErrArtifact       = errors.New("artifact does not match the card's pinned digest")
	// ErrArtifactUnreadable is a pinned file that cannot be read (not
	// there, not a regular file): no digest was compared. Such an error
	// is ErrArtifact too (errors.Is).
	ErrArtifactUnreadable = errors.New("a file the card pins cannot be read")
)

// VerifyError says why a card or artifact was refused.
type VerifyError struct {
	Kind   error  // one of the Err* sentinels
	Detail string // what exactly was wrong
	// Also is a second sentinel the error matches (ErrKeyFetch; ErrArtifact
	// for ErrArtifactUnreadable), or nil.
	Also error
	// byKeys: every trusted key of the card's kid refused it (did not
	// verify it, did not fit its algorithm, was not valid now).
	byKeys bool
}

func (e *VerifyError) Error() string { return e.Kind.Error() + ": " + e.Detail }
func (e *VerifyError) Unwrap() []error {
	if e.Also != nil {
		return []error{e.Kind, e.Also}
	}
	return []error{e.Kind}
}

func verr(kind error, format string, args ...any) *VerifyError {
	return &VerifyError{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// SigningPayload returns the bytes a card's signature covers (the canonical
// form of the card without its top-level "signature" member) and the parsed
// signature member (nil when absent).
func SigningPayload(card []byte) ([]byte, *Signature, error) {
	payload, sig, _, err := signingPayload(card, true)
	return payload, sig, err
}

// Unsigned returns card without its top-level "signature" member, as its
// canonical form (the bytes a new signature covers), whatever that member
// holds, or card itself when it has none. A signature is replaced when a
// card is signed, so a draft's placeholder there ({}, null, an empty
// key_id, as a card copied from seed 001 §2.2's example may hold) is not
// checked: `aios-host sign` refused such a draft as a "malformed card
// signature". The card must be I-JSON as SigningPayload reads it.
func Unsigned(card []byte) ([]byte, error) {
	payload, _, has, err := signingPayload(card, false)
	if err != nil || !has {
		return card, err
	}
	return payload, nil
}

// signingPayload is SigningPayload; readSig false leaves the signature
// member unread (sig nil), has saying whether there is one.
func signingPayload(card []byte, readSig bool) (payload []byte, sig *Signature, has bool, err error) {
	if !bytesValidUTF8(card) {
		return nil, nil, false, errors.New("card: not valid UTF-8")
	}
	if bytes.HasPrefix(card, []byte("\xef\xbb\xbf")) {
		return nil, nil, false, errors.New("card: starts with a UTF-8 byte order mark (EF BB BF): save it without one")
	}
	p := &jparser{s: card, exactInts: true}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, nil, false, fmt.Errorf("card: %w", err)
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, nil, false, fmt.Errorf("card: offset %d: trailing data after the JSON value", p.i)
	}
	obj, ok := v.(jobject)
	if !ok {
		return nil, nil, false, errors.New("card: top level is not a JSON object")
	}
	kept := make(jobject, 0, len(obj))
	for _, m := range obj {
		if m.name != "signature" {
			kept = append(kept, m)
			continue
		}
		has = true
		if !readSig {
			continue
		}
		if sig, err = parseSignatureMember(m.v); err != nil {
			return nil, nil, false, err
		}
	}
	payload, err = appendCanonical(make([]byte, 0, len(card)), kept)
	if err != nil {
		return nil, nil, false, err
	}
	return payload, sig, has, nil
}

func parseSignatureMember(v any) (*Signature, error) {
	obj, ok := v.(jobject)
	if !ok {
		return nil, verr(ErrMalformed, `"signature" must be an object {algorithm, key_id, value}`)
	}
	var s Signature
	for _, m := range obj {
		str, ok := m.v.(string)
		if !ok {
			return nil, verr(ErrMalformed, "signature.%s must be a string", m.name)
		}
		switch m.name {
		case "algorithm":
			s.Algorithm = str
		case "key_id":
			s.KeyID = str
		case "value":
			s.Value = str
		default:
			return nil, verr(ErrMalformed, "unknown member signature.%s (want algorithm, key_id, value)", m.name)
		}
	}
	switch {
	case s.Algorithm == "":
		return nil, verr(ErrMalformed, "signature.algorithm is missing")
	case s.KeyID == "":
		return nil, verr(ErrMalformed, "signature.key_id is missing")
	case s.Value == "":
		return nil, verr(ErrMalformed, "signature.value is missing")
	}
	return &s, nil
}

func bytesValidUTF8(b []byte) bool { return utf8.Valid(b) }

// SigningKey is a private key ready to sign cards.
type SigningKey struct {
	Key       crypto.Signer
	KeyID     string
	Algorithm jose.SignatureAlgorithm
}

// AlgorithmFor returns the card algorithm for a key type: RSA → RS256,
// ECDSA P-256 → ES256, Ed25519 → EdDSA.
func AlgorithmFor(pub crypto.PublicKey) (jose.SignatureAlgorithm, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < 2048 {
			return "", fmt.Errorf("RSA key of %d bits is too short (want at least 2048)", k.N.BitLen())
		}
		return jose.RS256, nil
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", fmt.Errorf("ECDSA key on curve %s: only P-256 (ES256) is accepted", k.Curve.Params().Name)
		}
		return jose.ES256, nil
	case ed25519.PublicKey:
		return jose.EdDSA, nil
	}
	return "", fmt.Errorf("key type %T cannot sign cards (want RSA, ECDSA P-256 or Ed25519)", pub)
}

// SignCard returns card with a fresh "signature" member (any old one is
// replaced). The output is the canonical card, indented for humans, with
// "signature" last; its formatting does not matter to verification.
func SignCard(card []byte, key SigningKey) ([]byte, error) {
	payload, _, _, err := signingPayload(card, false)
	if err != nil {
		return nil, err
	}
	if key.Algorithm == "" {
		if key.Algorithm, err = AlgorithmFor(key.Key.Public()); err != nil {
			return nil, err
		}
	}
	if key.KeyID == "" {
		return nil, errors.New("sign: the key has no key id")
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: key.Algorithm, Key: key.Key},
		(&jose.SignerOptions{}).WithType(JWSType).WithHeader("kid", key.KeyID))
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	value, err := obj.DetachedCompactSerialize()
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	sig, _ := json.Marshal(Signature{Algorithm: string(key.Algorithm), KeyID: key.KeyID, Value: value})
	out := make([]byte, 0, len(payload)+len(sig)+16)
	out = append(out, payload[:len(payload)-1]...)
	if len(payload) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"signature":`...)
	out = append(out, sig...)
	out = append(out, '}')
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out, "", "  "); err != nil {
		return nil, err
	}
	pretty.WriteByte('\n')
	return pretty.Bytes(), nil
}

// Verified is the outcome of a successful card verification.
type Verified struct {
	KeyID     string
	Algorithm string
	Trust     abi.TrustLevel
	KeySource string
	// KeyExpires is when the key that verified the card stops being valid
	// (its exp or the config's expires, the stricter; zero = never): the
	// card no longer verifies from then on.
	KeyExpires time.Time
	// Artifact is the card's pinned artifact, nil when it pins none.
	Artifact *ArtifactPin
}

// candidates returns the trusted keys of key id kid, the most trusted
// first, or ErrUnknownKey when there are none. A key that several
// entries of the key list hold (a set at Community and one key of it at
// Verified, a JWKS URL and an inline copy) so verifies at the highest
// level under which it is valid now, whatever the entries' order.
func candidates(ctx context.Context, keys KeyResolver, kid string) ([]*Key, error) {
	if keys == nil {
		return nil, verr(ErrUnknownKey, "key %q: no trusted keys are configured", kid)
	}
	cands, err := keys.Lookup(ctx, kid)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, verr(ErrUnknownKey, "no trusted key has key id %q", kid)
	}
	cands = slices.Clone(cands)
	slices.SortStableFunc(cands, func(a, b *Key) int { return cmp.Compare(b.Trust, a.Trust) })
	return cands, nil
}

// KeyResolver finds the public keys for a key id.
type KeyResolver interface {
	Lookup(ctx context.Context, kid string) ([]*Key, error)
}

type jwsHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
	B64 *bool  `json:"b64"`
	// Crit lists header parameters the verifier must understand (RFC 7515
	// §4.1.11); only "b64" is (RFC 7797, with b64 true), so a signature
	// whose crit names anything else is refused as malformed.
	Crit []string `json:"crit"`
}

// VerifyCard checks card's signature against keys. It returns ErrUnsigned
// (wrapped) for a card without signature; the caller decides whether an
// unsigned card is acceptable (it is Untrusted).
func VerifyCard(ctx context.Context, card []byte, keys KeyResolver) (*Verified, error) {
	payload, sig, err := SigningPayload(card)
	if err != nil {
		return nil, err
	}
	if sig == nil {
		return nil, verr(ErrUnsigned, "the card has no \"signature\" member")
	}
	v, err := verifyCard(ctx, card, payload, sig, keys)
	// A key set fetched from a URL may have given the kid to a new key
	// since (a hub rotating its key under a fixed kid): its cached key
	// then does not verify a card the new one signed (or does not fit
	// its algorithm, or has expired), which was refused as tampered until
	// the cache went stale (10 minutes), and a local unit so refused was
	// not looked at again. The sets that hold the
	// kid are fetched again (at most every MinRefetch) and the card
	// checked once more when the kid's keys there changed.
	if ve, ok := errors.AsType[*VerifyError](err); ok && ve.byKeys {
		if r, ok := keys.(kidRefetcher); ok && r.refetchKid(ctx, sig.KeyID) {
			return verifyCard(ctx, card, payload, sig, keys)
		}
	}
	return v, err
}

// refusedByKeys marks err, a refusal by each key of the card's kid, as
// such (VerifyError.byKeys).
func refusedByKeys(err error) error {
	if ve, ok := err.(*VerifyError); ok {
		ve.byKeys = true
	}
	return err
}

// kidRefetcher is a KeyResolver that can fetch again the key sets that
// hold a kid, reporting whether the kid's keys there changed.
type kidRefetcher interface {
	refetchKid(ctx context.Context, kid string) bool
}

// verifyCard is VerifyCard for the card's signing payload and parsed
// signature member.
func verifyCard(ctx context.Context, card, payload []byte, sig *Signature, keys KeyResolver) (*Verified, error) {
	own := *sig // its Value is rewritten below: the caller's may be checked again
	sig = &own
	parts := strings.Split(sig.Value, ".")
	if len(parts) == 1 {
		// Seed 001 §4.2's sketch: a bare signature over Python's
		// json.dumps of the card, no JWS header.
		return verifySeedSketch(ctx, card, sig, keys)
	}
	if len(parts) != 3 {
		return nil, verr(ErrMalformed, "signature.value is not a compact JWS (want header..signature, got %d parts)", len(parts))
	}
	// The signed bytes: the canonical card, or — a JWS with its payload
	// attached, "Header.Payload.Signature" as seed 001 §4.1 writes it —
	// the payload it carries, which must be this card (without its
	// signature) in some serialization: the same I-JSON value, so its
	// canonical form is the card's.
	signed := payload
	detached := parts[1] == ""
	if !detached {
		pb, err := base64.RawURLEncoding.DecodeString(parts[1])
		if err != nil {
			return nil, verr(ErrMalformed, "JWS payload is not base64url: %v", err)
		}
		// Read as the card is (SigningPayload): an integer past 2^53
		// that is not its double's canonical form shares that form
		// with its neighbours, so a payload signing 9007199254740993
		// verified a card saying 9007199254740992, a value the signer
		// never signed and the host reads as another.
		canon, _, inner, err := signingPayload(pb, false)
		if err != nil {
			return nil, verr(ErrMalformed, "signature.value carries a payload that is not this card without its signature (%v); leave the payload detached (empty) or attach the card it signs", err)
		}
		if inner || !bytes.Equal(canon, payload) {
			return nil, verr(ErrMalformed, "signature.value carries a payload that is not this card without its signature; leave the payload detached (empty) or attach the card it signs")
		}
		signed = pb
		sig.Value = parts[0] + ".." + parts[2]
	}
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, verr(ErrMalformed, "JWS protected header is not base64url: %v", err)
	}
	var hdr jwsHeader
	if err := json.Unmarshal(hb, &hdr); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			// An object whose member has the wrong type ("alg": 5,
			// "crit": "b64"): it was told it is no object, in Go's words
			// ("Go struct field jwsHeader.alg of type string").
			want := map[string]string{"alg": "a string", "kid": "a string", "typ": "a string", "b64": "a boolean", "crit": "an array of strings"}[strings.SplitN(ute.Field, ".", 2)[0]]
			if want == "" {
				want = "another type"
			}
			got, _, _ := strings.Cut(ute.Value, " ") // "number 5", "bool", "array"…
			if got == "bool" {
				got = "boolean"
			}
			return nil, verr(ErrMalformed, "JWS protected header member %q is a JSON %s; it must be %s", ute.Field, got, want)
		}
		return nil, verr(ErrMalformed, "JWS protected header is not a JSON object: %v", err)
	}
	if err := checkAlg(hdr.Alg); err != nil {
		return nil, err
	}
	if cardAlg(hdr.Alg) != cardAlg(sig.Algorithm) {
		return nil, verr(ErrAlgorithm, "JWS header alg %q differs from signature.algorithm %q", hdr.Alg, sig.Algorithm)
	}
	if hdr.Kid != "" && hdr.Kid != sig.KeyID {
		return nil, verr(ErrMalformed, "JWS header kid %q differs from signature.key_id %q", hdr.Kid, sig.KeyID)
	}
	// crit may name only "b64" (RFC 7797, which requires it there), the
	// one extension read here, and only with a b64 header (checked below:
	// false is refused).
	for _, c := range hdr.Crit {
		if c != "b64" || hdr.B64 == nil {
			return nil, verr(ErrMalformed, "JWS header crit %q names extensions this verifier does not support, or a header it lacks (only \"b64\" with a b64 header is understood)", hdr.Crit)
		}
	}
	// Explicit typing (RFC 8725 §3.11): a JWS made for something else (an
	// audit anchor, aios-audit-anchor+jws; an access token) by the same
	// key is not a card signature. No typ, or a generic one, is taken:
	// the seed's own example header says "typ": "JWT". typ is a media
	// type, written with or without its "application/" prefix, in any
	// case (RFC 7515 §4.1.9).
	switch typMediaType(hdr.Typ) {
	case "", typMediaType(JWSType), "application/jwt", "application/jose", "application/jws":
	default:
		return nil, verr(ErrMalformed, "JWS header typ %q is not a card signature's (%s)", hdr.Typ, JWSType)
	}
	if hdr.B64 != nil && !*hdr.B64 {
		return nil, verr(ErrMalformed, `JWS header "b64": false is not supported`)
	}
	verify, err := jwsVerifier(sig.Value, hdr.Alg, signed)
	if err != nil {
		return nil, err
	}
	cands, err := candidates(ctx, keys, sig.KeyID)
	if err != nil {
		return nil, err
	}
	// A detached JWS may also sign seed 001 §4.2's form of the card
	// (Python's json.dumps, SeedPayload), as an attached one may carry
	// it: both are this card's value, only serialized otherwise. Tried
	// when the canonical form does not verify.
	var seedForm []byte
	check := func(k *Key) error {
		err := verify(signed, k.JWK.Key)
		if err != nil && detached {
			if seedForm == nil {
				seedForm, _ = SeedPayload(card)
			}
			if seedForm != nil && !bytes.Equal(seedForm, signed) && verify(seedForm, k.JWK.Key) == nil {
				err = nil
			}
		}
		return err
	}
	var firstErr, signedBy error
	for _, k := range cands {
		if err := k.usableFor(cardAlg(hdr.Alg), "card"); err != nil {
			signedBy = signersValidity(signedBy, err, func() error { return check(k) })
			firstErr = cmpErr(firstErr, err)
			continue
		}
		err := check(k)
		if err != nil {
			what := "the canonical card"
			if detached {
				what = "the card (neither its canonical form, RFC 8785, nor seed 001 §4.2's json.dumps form)"
			}
			firstErr = cmpErr(firstErr, verr(ErrTampered, "key %q (%s) does not verify %s: %v", sig.KeyID, k.Source, what, err))
			continue
		}
		v := &Verified{KeyID: sig.KeyID, Algorithm: hdr.Alg, Trust: k.Trust, KeySource: k.Source, KeyExpires: k.Expires}
		if v.Artifact, err = ArtifactOf(card); err != nil {
			return nil, err
		}
		return v, nil
	}
	return nil, refusedByKeys(cmp.Or(signedBy, firstErr))
}

// signersValidity returns the refusal of a key whose signature the card
// carries but that is not valid now (refused, usableFor's error; verify
// checks the signature with it): with keys rotated under one kid, that
// key's expiry or nbf is why the card is refused, not the other keys'
// mismatch, which blames an untouched card. found is such a refusal
// already seen, kept.
func signersValidity(found, refused error, verify func() error) error {
	if found == nil && errors.Is(refused, ErrKeyExpired) && verify() == nil {
		return refused
	}
	return found
}

// typMediaType is the media type a JWS typ header names (RFC 7515
// §4.1.9): lower-cased, with "application/" put before a value that has
// no '/' ("" stays "").
func typMediaType(typ string) string {
	t := strings.ToLower(typ)
	if t != "" && !strings.Contains(t, "/") {
		t = "application/" + t
	}
	return t
}

// cmpErr keeps the most telling error: a signature mismatch beats a key
// that merely did not fit.
func cmpErr(old, new error) error {
	if old == nil || errors.Is(new, ErrTampered) {
		return new
	}
	// A key that fits the card's algorithm says more than one that does
	// not (usableFor checks the fit before the validity): the kid's other
	// key, rotated to another algorithm, is not why the card is refused.
	if errors.Is(new, ErrKeyExpired) && errors.Is(old, ErrAlgorithm) {
		return new
	}
	return old
}

// algEd25519 is RFC 9864's fully-specified name for EdDSA over Ed25519,
// which deprecates the polymorphic "EdDSA" in new JWS headers. go-jose
// knows only "EdDSA"; cards signed under either name verify alike.
const algEd25519 = "Ed25519"

// cardAlg returns the card algorithm alg names: "EdDSA" for "Ed25519",
// alg itself otherwise.
func cardAlg(alg string) string {
	if alg == algEd25519 {
		return string(jose.EdDSA)
	}
	return alg
}

// jwsVerifier returns the function that checks the detached compact JWS
// value (header..signature) over a payload with a key. A header alg of
// "Ed25519" is checked here with crypto/ed25519 over RFC 7515's signing
// input, since go-jose refuses that name; every other alg by go-jose.
func jwsVerifier(value, alg string, payload []byte) (func(payload []byte, key any) error, error) {
	if alg == string(jose.ES256) {
		// RFC 7518 §3.4: r||s, 32 bytes each. A DER signature (what
		// most ECDSA libraries return, 70 to 72 bytes) was refused as
		// a tampered card or wrong key, "error in cryptographic
		// primitive", sending its signer after the key.
		sigPart := value[strings.LastIndexByte(value, '.')+1:]
		if raw, err := base64.RawURLEncoding.DecodeString(sigPart); err == nil && len(raw) != 64 && isDERECDSASignature(raw) {
			return nil, verr(ErrMalformed, "JWS signature under alg %q is %d bytes of DER, as ECDSA libraries return it; a JWS takes the two 32-byte integers r and s concatenated, 64 bytes (RFC 7518 §3.4)", alg, len(raw))
		}
	}
	if alg != algEd25519 {
		jws, err := jose.ParseDetached(value, payload, Algorithms())
		if err != nil {
			return nil, verr(ErrMalformed, "parsing JWS: %v", err)
		}
		return func(p []byte, key any) error { return jws.DetachedVerify(p, key) }, nil
	}
	header, rest, _ := strings.Cut(value, ".")
	_, sigPart, _ := strings.Cut(rest, ".")
	sigBytes, err := base64.RawURLEncoding.DecodeString(sigPart)
	if err != nil {
		return nil, verr(ErrMalformed, "JWS signature is not base64url: %v", err)
	}
	if len(sigBytes) != ed25519.SignatureSize {
		return nil, verr(ErrMalformed, "JWS signature under alg %q is %d bytes, want %d", alg, len(sigBytes), ed25519.SignatureSize)
	}
	return func(p []byte, key any) error {
		pub, ok := key.(ed25519.PublicKey)
		if !ok {
			return fmt.Errorf("key is %T, not an Ed25519 public key", key)
		}
		input := make([]byte, 0, len(header)+1+base64.RawURLEncoding.EncodedLen(len(p)))
		input = append(input, header...)
		input = append(input, '.')
		input = base64.RawURLEncoding.AppendEncode(input, p)
		if !ed25519.Verify(pub, input, sigBytes) {
			return errors.New("signature does not match")
		}
		return nil
	}, nil
}

// isDERECDSASignature reports whether b is an ECDSA signature in DER,
// SEQUENCE { INTEGER r, INTEGER s } and nothing after it.
func isDERECDSASignature(b []byte) bool {
	var sig struct{ R, S *big.Int }
	rest, err := asn1.Unmarshal(b, &sig)
	return err == nil && len(rest) == 0
}

func checkAlg(alg string) error {
	if alg == algEd25519 {
		return nil
	}
	switch {
	case alg == "":
		return verr(ErrAlgorithm, "JWS header has no alg")
	case strings.EqualFold(alg, "none"):
		return verr(ErrAlgorithm, `alg "none" is never accepted`)
	case strings.HasPrefix(strings.ToUpper(alg), "HS"):
		return verr(ErrAlgorithm, "alg %q is an HMAC algorithm; cards must be signed with a public-key algorithm (RS256, ES256, EdDSA)", alg)
	}
	for _, a := range Algorithms() {
		if string(a) == alg {
			return nil
		}
	}
	return verr(ErrAlgorithm, "alg %q is not accepted (want RS256, ES256, or EdDSA, also named Ed25519)", alg)
}

// ArtifactOf returns the card's "artifact" member, nil when there is none.
// Member names are matched exactly: encoding/json would also take
// "Path" or "ARTIFACT" for them, and a pin holding two spellings would be
// read as whichever comes last, which the signature (JCS, blind to member
// order) does not fix.
func ArtifactOf(card []byte) (*ArtifactPin, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(card, &top); err != nil {
		return nil, fmt.Errorf("card: %w", err)
	}
	raw, ok := top["artifact"]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, verr(ErrMalformed, "artifact must be an object {path, sha256, files}: %v", err)
	}
	for name := range members {
		if name != "path" && name != "sha256" && name != "files" {
			return nil, verr(ErrMalformed, "unknown member artifact.%q (want path, sha256, files; names are case-sensitive)", name)
		}
	}
	var pin ArtifactPin
	if err := json.Unmarshal(raw, &pin); err != nil {
		return nil, verr(ErrMalformed, "artifact: %v", err)
	}
	if err := pin.validate(); err != nil {
		return nil, err
	}
	return &pin, nil
}

func (a *ArtifactPin) validate() error {
	if err := ValidateArtifactPath(a.Path); err != nil {
		return err
	}
	if a.SHA256 != "" && !isDigest(a.SHA256) {
		return verr(ErrMalformed, "artifact.sha256 %q is not 64 lower-case hex digits", a.SHA256)
	}
	for p, sum := range a.Files {
		if err := validatePath("artifact.files name", p); err != nil {
			return err
		}
		if filepath.Clean(p) != p {
			return verr(ErrMalformed, "artifact.files: %q is not a clean path (want %q)", p, filepath.Clean(p))
		}
		if p == filepath.Clean(a.Path) {
			return verr(ErrMalformed, "artifact.files: %q is the artifact itself (its digest is artifact.sha256)", p)
		}
		if !isDigest(sum) {
			return verr(ErrMalformed, "artifact.files[%q] %q is not 64 lower-case hex digits", p, sum)
		}
	}
	return nil
}

func isDigest(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == sha256.Size && strings.ToLower(s) == s
}

// Pins returns the absolute paths of the artifact and its pinned files
// (relative to dir) with their digests: what a runtime may load of a
// signed provider.
func (a *ArtifactPin) Pins(dir string) map[string]string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	m := make(map[string]string, len(a.Files)+1)
	m[filepath.Join(dir, filepath.FromSlash(a.Path))] = a.SHA256
	for p, sum := range a.Files {
		m[filepath.Join(dir, filepath.FromSlash(p))] = sum
	}
	return m
}

// FileNames returns the pinned files' paths (not the artifact's), sorted.
func (a *ArtifactPin) FileNames() []string {
	if a == nil {
		return nil
	}
	names := make([]string, 0, len(a.Files))
	for p := range a.Files {
		names = append(names, p)
	}
	sort.Strings(names)
	return names
}

// ValidateArtifactPath checks that p is a plain relative path that stays
// inside the card's folder.
func ValidateArtifactPath(p string) error { return validatePath("artifact.path", p) }

// validatePath is ValidateArtifactPath for the member named field.
func validatePath(field, p string) error {
	if p == "" {
		return verr(ErrMalformed, "%s is empty", field)
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return verr(ErrMalformed, "%s %q must be relative to the card's folder (forward slashes)", field, p)
	}
	c := filepath.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") || c == "." {
		return verr(ErrMalformed, "%s %q leaves the card's folder", field, p)
	}
	return nil
}

// FileSHA256 returns the lower-case hex SHA-256 of the file at path, a
// regular file: a FIFO put in its place is refused, not waited on
// (`aios-host verify` hung on one).
func FileSHA256(path string) (string, error) {
	f, err := fsperm.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Check verifies that the artifact beside the card in dir has the pinned
// digest. A pin without a digest fails: a signed card must pin its code.
func (a *ArtifactPin) Check(dir string) error {
	if a.SHA256 == "" {
		return verr(ErrArtifact, "artifact %q: the card gives no sha256", a.Path)
	}
	got, err := FileSHA256(filepath.Join(dir, filepath.FromSlash(a.Path)))
	if err != nil {
		return unreadable("artifact %q: %v", a.Path, err)
	}
	if err := a.CheckDigest(got); err != nil {
		return err
	}
	for _, p := range a.FileNames() {
		got, err := FileSHA256(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return unreadable("pinned file %q: %v", p, err)
		}
		if err := a.CheckFile(p, got); err != nil {
			return err
		}
	}
	return nil
}

// unreadable is the error of a pinned file that cannot be read: it was
// said to be a digest mismatch, "artifact does not match the card's pinned
// digest: artifact \"tool.js\": open …: no such file or directory".
func unreadable(format string, args ...any) *VerifyError {
	e := verr(ErrArtifactUnreadable, format, args...)
	e.Also = ErrArtifact
	return e
}

// CheckFile compares an already computed hex digest of the pinned file p
// with its pin.
func (a *ArtifactPin) CheckFile(p, got string) error {
	if want := a.Files[p]; got != want {
		return verr(ErrArtifact, "pinned file %q has sha256 %s, the card pins %s", p, got, want)
	}
	return nil
}

// CheckDigest compares an already computed hex digest with the pin.
func (a *ArtifactPin) CheckDigest(got string) error {
	if got != a.SHA256 {
		return verr(ErrArtifact, "artifact %q has sha256 %s, the card pins %s", a.Path, got, a.SHA256)
	}
	return nil
}

// PinArtifact sets the card's artifact.sha256 to the digest of the file
// artifact.path relative to dir, and artifact.files to the digests of
// every other regular file under dir (see ArtifactPin) except the card
// itself (cardName, relative to dir). A card without "artifact" is
// returned unchanged (pinned=false). The result is canonical JSON.
func PinArtifact(card []byte, dir, cardName string) (out []byte, pinned bool, err error) {
	pin, err := ArtifactOf(card)
	if err != nil || pin == nil {
		return card, false, err
	}
	sum, err := FileSHA256(filepath.Join(dir, filepath.FromSlash(pin.Path)))
	if err != nil {
		return nil, false, fmt.Errorf("pinning artifact: %w", err)
	}
	files, err := folderFiles(dir, filepath.Clean(cardName), filepath.Clean(pin.Path))
	if err != nil {
		return nil, false, fmt.Errorf("pinning the files beside the artifact: %w", err)
	}
	var m any
	if err := abi.UnmarshalJSONValue(card, &m); err != nil {
		return nil, false, err
	}
	top := m.(map[string]any)
	art, _ := top["artifact"].(map[string]any)
	art["sha256"] = sum
	delete(art, "files")
	if len(files) > 0 {
		fm := make(map[string]any, len(files))
		for p, s := range files {
			fm[p] = s
		}
		art["files"] = fm
	}
	out, err = CanonicalizeValue(top)
	return out, true, err
}

// UnpinArtifact is card without its artifact's sha256 and files, what
// PinArtifact writes: a draft's placeholders there are not checked before
// they are replaced. A card without an artifact object is returned as it
// is.
func UnpinArtifact(card []byte) ([]byte, error) {
	var m any
	if err := abi.UnmarshalJSONValue(card, &m); err != nil {
		return nil, err
	}
	top, _ := m.(map[string]any)
	art, _ := top["artifact"].(map[string]any)
	if art == nil {
		return card, nil
	}
	_, hasSum := art["sha256"]
	_, hasFiles := art["files"]
	if !hasSum && !hasFiles {
		return card, nil
	}
	delete(art, "sha256")
	delete(art, "files")
	return CanonicalizeValue(top)
}

// Unpinned lists the files under dir (as PinArtifact would pin them) that
// the pin does not cover: a signed provider's runtime refuses to load
// them.
func (a *ArtifactPin) Unpinned(dir, cardName string) ([]string, error) {
	files, err := folderFiles(dir, filepath.Clean(cardName), filepath.Clean(a.Path))
	if err != nil {
		return nil, err
	}
	var out []string
	for p := range files {
		if _, ok := a.Files[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// maxPinnedFiles bounds artifact.files: a folder with more files than this
// is not a provider's code.
const maxPinnedFiles = 10000

// folderFiles returns the digests of the files of PinnedExtensions under
// dir (paths relative to it, with forward slashes), leaving out skip...,
// Adapter Cards, and hidden or __pycache__ entries. Symbolic links among
// them are refused: a signed folder's code must be in it.
func folderFiles(dir string, skip ...string) (map[string]string, error) {
	out := map[string]string{}
	// A folder reached through a symbolic link is walked where it is
	// (WalkDir does not enter a link given as its root).
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") || name == "__pycache__" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if slices.Contains(skip, rel) || !pinnedKind(name) || name == "adapter.json" || strings.HasSuffix(name, ".adapter.json") {
			return nil // not code, or a card (another card of the folder, a signed copy)
		}
		if !utf8.ValidString(rel) || strings.ContainsRune(rel, '\\') {
			return fmt.Errorf("%s: a file name that is not UTF-8 or holds a backslash cannot be pinned; rename it", path)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link, not a regular file: a signed folder's code must be in it (copy the file in, or move it out of the folder if no code loads it)", path)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file (a signed folder may hold only files and folders)", path)
		}
		if len(out) == maxPinnedFiles {
			return fmt.Errorf("%s holds more than %d files", dir, maxPinnedFiles)
		}
		sum, err := FileSHA256(path)
		if err != nil {
			return err
		}
		if strings.EqualFold(filepath.Ext(name), ".json") {
			if info, err := d.Info(); err == nil && info.Size() == 0 {
				return nil // being written (`sign card > signed.json` in the folder)
			}
			if isCard(path) {
				return nil // a description (a draft, a copy), not code
			}
		}
		out[filepath.ToSlash(rel)] = sum
		return nil
	})
	return out, err
}

// PinnedExtensions are the kinds of file a runtime may load besides the
// artifact (JS/TS imports and what esbuild reads, Python modules): the
// files PinArtifact pins.
var PinnedExtensions = []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".json", ".txt", ".py"}

func pinnedKind(name string) bool {
	return slices.Contains(PinnedExtensions, strings.ToLower(filepath.Ext(name)))
}

// maxCardFile is the size past which a JSON file is no card: discovery
// refuses a card larger (discovery.MaxCardBytes).
const maxCardFile = 1 << 20

// isCard reports whether the JSON file at path is an Adapter Card (an
// object with an "adapter" object). A file past maxCardFile is not read
// (every .json of the folder was read whole to tell, a data file of
// gigabytes too: p187's leftover, TestPinSkipsLargeJSONUnread).
func isCard(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCardFile+1))
	if err != nil || len(data) > maxCardFile {
		return false
	}
	var top struct {
		Adapter struct {
			ID              string `json:"id"`
			ProtocolVersion string `json:"protocol_version"`
		} `json:"adapter"`
	}
	return json.Unmarshal(data, &top) == nil && top.Adapter.ID != "" && top.Adapter.ProtocolVersion != ""
}

// PackageCardFolder is the folder of a package that holds its card (seed
// §2.1: a local adapter's card is <package>/aios/adapter.json).
const PackageCardFolder = "aios"

// CardRoot returns the folder that the artifact.path and pinned files of
// the card at cardPath are relative to, and the card's path relative to
// it (with forward slashes). That is the card's folder, except for a card
// in a package's aios/ folder (<pkg>/aios/adapter.json): then it is the
// package, <pkg> — unless artifactPath (the card's artifact.path, "" for
// none) names a file in the aios/ folder and not in its parent (a
// provider folder that is itself named aios).
func CardRoot(cardPath, artifactPath string) (root, rel string) {
	dir := filepath.Dir(cardPath)
	// The folder's own name, also for a card named from inside it
	// ("adapter.json" in PKG/aios, whose folder is ".").
	name := filepath.Base(dir)
	if abs, err := filepath.Abs(dir); err == nil {
		name = filepath.Base(abs)
	}
	if name != PackageCardFolder {
		return dir, filepath.Base(cardPath)
	}
	parent := filepath.Join(dir, "..")
	if artifactPath != "" && ValidateArtifactPath(artifactPath) == nil {
		inParent := exists(filepath.Join(parent, filepath.FromSlash(artifactPath)))
		if !inParent && exists(filepath.Join(dir, filepath.FromSlash(artifactPath))) {
			return dir, filepath.Base(cardPath)
		}
	}
	return parent, PackageCardFolder + "/" + filepath.Base(cardPath)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

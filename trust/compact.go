package trust

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// SignCompact returns a compact JWS (header.payload.signature, RFC 7515)
// over payload with header "typ" typ and the key's "kid"; the algorithm
// follows the key (RSA → RS256, P-256 → ES256, Ed25519 → EdDSA). Used for
// small signed statements such as audit log anchors.
func SignCompact(payload []byte, typ string, key SigningKey) (string, error) {
	var err error
	if key.Algorithm == "" {
		if key.Algorithm, err = AlgorithmFor(key.Key.Public()); err != nil {
			return "", err
		}
	}
	if key.KeyID == "" {
		return "", errors.New("sign: the key has no key id")
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: key.Algorithm, Key: key.Key},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)).WithHeader("kid", key.KeyID))
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	return obj.CompactSerialize()
}

// VerifyCompact checks a compact JWS made by SignCompact: one signature,
// header "typ" equal to typ, an algorithm of Algorithms() that matches the
// key type (no algorithm confusion), and a key of keys with the header's
// "kid" that is valid now and verifies it. It returns the payload and the
// key id. Errors wrap ErrMalformed, ErrAlgorithm, ErrUnknownKey,
// ErrKeyExpired or ErrTampered.
func VerifyCompact(token, typ string, keys []*Key) ([]byte, string, error) {
	obj, err := jose.ParseSigned(token, Algorithms())
	if err != nil {
		if errors.Is(err, jose.ErrUnsupportedAlgorithm) {
			return nil, "", fmt.Errorf("%w: %v", ErrAlgorithm, err)
		}
		return nil, "", fmt.Errorf("%w: %v", errMalformedToken, err)
	}
	if len(obj.Signatures) != 1 {
		return nil, "", fmt.Errorf("%w: %d signatures, want 1", errMalformedToken, len(obj.Signatures))
	}
	h := obj.Signatures[0].Protected
	if got, _ := h.ExtraHeaders[jose.HeaderType].(string); got != typ {
		return nil, "", fmt.Errorf("%w: typ %q, want %q", errMalformedToken, got, typ)
	}
	if h.KeyID == "" {
		return nil, "", fmt.Errorf("%w: no kid in the header", ErrMalformed)
	}
	// As for a card: the most telling refusal whatever the keys' order,
	// and the validity of a key whose signature the token carries
	// before the other keys' mismatch (keys rotated under one kid).
	var firstErr, signedBy error
	for _, k := range keys {
		if k.JWK.KeyID != h.KeyID {
			continue
		}
		if err := k.usableFor(h.Algorithm, "token"); err != nil {
			signedBy = signersValidity(signedBy, err, func() error { _, err := obj.Verify(k.JWK.Key); return err })
			firstErr = cmpErr(firstErr, err)
			continue
		}
		payload, err := obj.Verify(k.JWK.Key)
		if err != nil {
			firstErr = cmpErr(firstErr, fmt.Errorf("%w: %v", errTamperedToken, err))
			continue
		}
		return payload, h.KeyID, nil
	}
	if err := cmp.Or(signedBy, firstErr); err != nil {
		return nil, "", err
	}
	if held := keySummary(keys); held != "" {
		return nil, "", fmt.Errorf("%w: no key with kid %q (%s)", ErrUnknownKey, h.KeyID, held)
	}
	return nil, "", fmt.Errorf("%w: no key with kid %q", ErrUnknownKey, h.KeyID)
}

// tokenErr is a card error (ErrMalformed, ErrTampered) said of a compact
// JWS (a signed audit anchor), whose message must not speak of a card
// ("signed anchor a.jws: malformed card signature" before); errors.Is
// still finds the card error.
type tokenErr struct {
	is  error
	msg string
}

func (e *tokenErr) Error() string        { return e.msg }
func (e *tokenErr) Is(target error) bool { return target == e.is }

var (
	errMalformedToken = &tokenErr{ErrMalformed, "malformed signed token"}
	errTamperedToken  = &tokenErr{ErrTampered, "signature does not match the token (tampered token or wrong key)"}
)

package trust

import (
	"bytes"
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Seed 001 §4.2 and §4.3 sign and verify a card with a bare signature:
//
//	card_copy = {k: v for k, v in adapter_card.items() if k != 'signature'}
//	payload = json.dumps(card_copy, sort_keys=True, separators=(',', ':'))
//	signature = private_key.sign(payload.encode(), padding.PKCS1v15(), hashes.SHA256())
//	return base64.urlsafe_b64encode(signature).decode()
//
// That is RS256 over Python's json.dumps of the card, without a JWS
// header. verifySeedSketch checks such a value: SeedPayload re-creates the
// bytes json.dumps writes for the card as Python reads it.

// SeedPayload returns the bytes seed 001 §4.2's sketch signs for card:
// Python's json.dumps(card without its top-level "signature",
// sort_keys=True, separators=(',', ':')) — keys sorted by code point,
// ensure_ascii (every character outside ' '..'~' as a lower-case \uXXXX
// escape, astral ones as surrogate pairs), integers as Python prints int,
// other numbers as Python's float repr. card must already have passed
// SigningPayload (I-JSON: valid UTF-8, no duplicate names, no lone
// surrogates, numbers that fit a double).
func SeedPayload(card []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(card))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("card: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("card: top level is not a JSON object")
	}
	delete(m, "signature")
	return appendPyJSON(make([]byte, 0, len(card)), m)
}

func appendPyJSON(out []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(out, "null"...), nil
	case bool:
		if x {
			return append(out, "true"...), nil
		}
		return append(out, "false"...), nil
	case string:
		return appendPyString(out, x), nil
	case json.Number:
		return appendPyNumber(out, string(x))
	case []any:
		out = append(out, '[')
		for i, e := range x {
			if i > 0 {
				out = append(out, ',')
			}
			if out, err = appendPyJSON(out, e); err != nil {
				return nil, err
			}
		}
		return append(out, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // UTF-8 byte order is code point order, Python's
		out = append(out, '{')
		for i, k := range keys {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendPyString(out, k)
			out = append(out, ':')
			if out, err = appendPyJSON(out, x[k]); err != nil {
				return nil, err
			}
		}
		return append(out, '}'), nil
	}
	return nil, fmt.Errorf("card: a Go %T is not a JSON value", v)
}

const lowerHex = "0123456789abcdef"

// appendPyString writes s as json.dumps does with ensure_ascii.
func appendPyString(out []byte, s string) []byte {
	u4 := func(out []byte, c rune) []byte {
		return append(out, '\\', 'u', lowerHex[c>>12&15], lowerHex[c>>8&15], lowerHex[c>>4&15], lowerHex[c&15])
	}
	out = append(out, '"')
	for _, r := range s {
		switch {
		case r == '"':
			out = append(out, '\\', '"')
		case r == '\\':
			out = append(out, '\\', '\\')
		case r >= ' ' && r <= '~':
			out = append(out, byte(r))
		case r == '\b':
			out = append(out, '\\', 'b')
		case r == '\f':
			out = append(out, '\\', 'f')
		case r == '\n':
			out = append(out, '\\', 'n')
		case r == '\r':
			out = append(out, '\\', 'r')
		case r == '\t':
			out = append(out, '\\', 't')
		case r >= 0x10000:
			hi, lo := utf16.EncodeRune(r)
			out = u4(u4(out, hi), lo)
		default:
			out = u4(out, r)
		}
	}
	return append(out, '"')
}

// appendPyNumber writes a JSON number literal as Python writes the value
// json.loads makes of it: an int (no fraction, no exponent) in full, a
// float as repr(float).
func appendPyNumber(out []byte, lit string) ([]byte, error) {
	if !strings.ContainsAny(lit, ".eE") {
		n, ok := new(big.Int).SetString(lit, 10)
		if !ok {
			return nil, fmt.Errorf("card: number %s is not an integer", lit)
		}
		return n.Append(out, 10), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("card: number %s does not fit an IEEE 754 double", lit)
	}
	return appendPyFloat(out, f), nil
}

// appendPyFloat writes f as Python's repr(float): the shortest digits
// that read back as f, in positional notation when the decimal point
// falls within -4 < decpt <= 16 (with ".0" for a whole number), else as
// d.ddde±XX.
func appendPyFloat(out []byte, f float64) []byte {
	if math.Signbit(f) {
		out = append(out, '-')
		f = -f
	}
	if f == 0 {
		return append(out, "0.0"...)
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d[.ddd]e±XX
	mant, exps, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(exps)
	decpt := exp + 1
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			out = append(out, "0."...)
			out = append(out, strings.Repeat("0", -decpt)...)
			return append(out, digits...)
		case decpt >= len(digits):
			out = append(out, digits...)
			out = append(out, strings.Repeat("0", decpt-len(digits))...)
			return append(out, ".0"...)
		default:
			out = append(out, digits[:decpt]...)
			out = append(out, '.')
			return append(out, digits[decpt:]...)
		}
	}
	out = append(out, digits[0])
	if len(digits) > 1 {
		out = append(out, '.')
		out = append(out, digits[1:]...)
	}
	out = append(out, 'e')
	if exp < 0 {
		out = append(out, '-')
		exp = -exp
	} else {
		out = append(out, '+')
	}
	if exp < 10 {
		out = append(out, '0')
	}
	return strconv.AppendInt(out, int64(exp), 10)
}

// verifySeedSketch checks a bare signature.value (no JWS header), as seed
// 001 §4.2 makes it: RS256 (RSA PKCS#1 v1.5, SHA-256) over SeedPayload,
// base64url or standard Base64, with or without padding. ES256 (§2.3
// lists RS256 and ES256) is taken the same way, over the same bytes: the
// signature as Python's cryptography makes it (ec.ECDSA(hashes.SHA256()):
// DER), or as r||s (64 bytes, JOSE's form). Other algorithms need the JWS
// header.
func verifySeedSketch(ctx context.Context, card []byte, sig *Signature, keys KeyResolver) (*Verified, error) {
	alg := sig.Algorithm
	if alg != "RS256" && alg != "ES256" {
		return nil, verr(ErrMalformed, "signature.value is not a compact JWS (header..signature); a bare signature (seed 001 §4.2's form) is taken for RS256 and ES256 only, not %q: sign with `aios-host sign` or make value a JWS", alg)
	}
	raw, err := decodeBareSignature(sig.Value)
	if err != nil {
		return nil, verr(ErrMalformed, "signature.value is neither a compact JWS (header..signature) nor a signature in base64url or standard Base64 (seed 001 §4.2, §2.3): %v", err)
	}
	// An RSA signature is as long as its key's modulus (2048 bits at
	// least); an ECDSA P-256 one is 8 to 72 bytes of DER, or 64 of r||s.
	if alg == "RS256" && len(raw) < 256 || alg == "ES256" && (len(raw) < 8 || len(raw) > 72) {
		return nil, verr(ErrMalformed, "signature.value is neither a compact JWS (header..signature) nor a bare %s signature (seed 001 §4.2): %d bytes", alg, len(raw))
	}
	payload, err := SeedPayload(card)
	if err != nil {
		return nil, verr(ErrMalformed, "%v", err)
	}
	sum := sha256.Sum256(payload)
	cands, err := candidates(ctx, keys, sig.KeyID)
	if err != nil {
		return nil, err
	}
	var firstErr, signedBy error
	for _, k := range cands {
		if err := k.usableFor(alg, "card"); err != nil {
			signedBy = signersValidity(signedBy, err, func() error { return verifyBare(k.JWK.Key, alg, sum[:], raw) })
			firstErr = cmpErr(firstErr, err)
			continue
		}
		if err := verifyBare(k.JWK.Key, alg, sum[:], raw); err != nil {
			firstErr = cmpErr(firstErr, verr(ErrTampered, "key %q (%s) does not verify the card's bare %s signature over its json.dumps form (seed 001 §4.2): %v", sig.KeyID, k.Source, alg, err))
			continue
		}
		v := &Verified{KeyID: sig.KeyID, Algorithm: alg, Trust: k.Trust, KeySource: k.Source, KeyExpires: k.Expires}
		if v.Artifact, err = ArtifactOf(card); err != nil {
			return nil, err
		}
		return v, nil
	}
	return nil, refusedByKeys(cmp.Or(signedBy, firstErr))
}

// decodeBareSignature decodes a bare signature.value: base64url, as the
// §4.2 sketch writes it (urlsafe_b64encode), or standard Base64, as
// §2.3's field table names it ("签名值 (Base64)"); padded or not. The
// alphabets differ only in '-', '_' against '+', '/', so a value is read
// one way at most.
func decodeBareSignature(v string) ([]byte, error) {
	enc := base64.URLEncoding
	if strings.ContainsAny(v, "+/") {
		enc = base64.StdEncoding
	}
	if strings.HasSuffix(v, "=") {
		return enc.Strict().DecodeString(v)
	}
	return enc.WithPadding(base64.NoPadding).Strict().DecodeString(v)
}

// verifyBare checks a bare signature of digest with pub (whose type
// usableFor matched to alg).
func verifyBare(pub any, alg string, digest, raw []byte) error {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if alg == "RS256" {
			return rsa.VerifyPKCS1v15(k, crypto.SHA256, digest, raw)
		}
	case *ecdsa.PublicKey:
		if alg != "ES256" {
			break
		}
		if ecdsa.VerifyASN1(k, digest, raw) {
			return nil
		}
		if len(raw) == 64 {
			r, s := new(big.Int).SetBytes(raw[:32]), new(big.Int).SetBytes(raw[32:])
			if ecdsa.Verify(k, digest, r, s) {
				return nil
			}
		}
		return errors.New("ecdsa: verification error (DER or 64-byte r||s)")
	}
	return fmt.Errorf("a %T key does not verify %s", pub, alg)
}

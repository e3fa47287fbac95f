package trust

import (
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// GenerateKey makes a new signing key for alg (RS256: RSA 3072, ES256:
// P-256, EdDSA: Ed25519) with its RFC 7638 thumbprint as key id unless kid
// is given.
func GenerateKey(alg, kid string) (SigningKey, error) {
	var k crypto.Signer
	var err error
	switch jose.SignatureAlgorithm(alg) {
	case jose.RS256:
		k, err = rsa.GenerateKey(rand.Reader, 3072)
	case jose.ES256:
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jose.EdDSA:
		_, k, err = ed25519.GenerateKey(rand.Reader)
	default:
		return SigningKey{}, fmt.Errorf("unknown algorithm %q (want ES256, RS256 or EdDSA)", alg)
	}
	if err != nil {
		return SigningKey{}, err
	}
	if kid == "" {
		if kid, err = Thumbprint(k.Public()); err != nil {
			return SigningKey{}, err
		}
	}
	return SigningKey{Key: k, KeyID: kid, Algorithm: jose.SignatureAlgorithm(alg)}, nil
}

// MarshalPrivateKeyPEM encodes the private key as a PKCS #8 PEM block.
func MarshalPrivateKeyPEM(k crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// ParsePrivateKeyPEM reads a PKCS #8, PKCS #1 (RSA) or SEC 1 (EC) PEM
// private key. kid may be empty: the key's thumbprint is used.
func ParsePrivateKeyPEM(data []byte, kid string) (SigningKey, error) {
	// The key may follow other blocks: the curve's parameters (openssl
	// ecparam -genkey), a certificate (a combined certificate and key file).
	var block *pem.Block
	var others []string
	for rest := data; ; {
		block, rest = pem.Decode(rest)
		if block == nil || strings.HasSuffix(block.Type, "PRIVATE KEY") {
			break
		}
		others = append(others, strconv.Quote(block.Type))
	}
	if block == nil && slices.Equal(others, []string{`"EC PARAMETERS"`}) {
		return SigningKey{}, errors.New("only EC PARAMETERS, no private key PEM block found (openssl ecparam needs -genkey)")
	}
	if block == nil && len(others) > 0 {
		return SigningKey{}, fmt.Errorf("no private key PEM block found, only %s", strings.Join(others, ", "))
	}
	if block == nil {
		return SigningKey{}, errors.New("no PEM block found (want a PRIVATE KEY)")
	}
	// PKCS #8's encrypted form, or OpenSSL's legacy one (RFC 1421 headers).
	if block.Type == "ENCRYPTED PRIVATE KEY" || strings.HasPrefix(block.Headers["Proc-Type"], "4,ENCRYPTED") {
		return SigningKey{}, fmt.Errorf("the private key (PEM block %q) is encrypted with a passphrase: decrypt it first (openssl pkey -in FILE -out PLAIN.pem)", block.Type)
	}
	parsers := map[string]func([]byte) (any, error){
		"PRIVATE KEY":     x509.ParsePKCS8PrivateKey,
		"RSA PRIVATE KEY": func(der []byte) (any, error) { return x509.ParsePKCS1PrivateKey(der) },
		"EC PRIVATE KEY":  func(der []byte) (any, error) { return x509.ParseECPrivateKey(der) },
	}
	parse, ok := parsers[block.Type]
	if !ok && block.Type == "OPENSSH PRIVATE KEY" {
		return SigningKey{}, errors.New("an OpenSSH private key (ssh-keygen's own format) is not read here: convert a copy of an RSA or ECDSA P-256 one to PKCS #8 with ssh-keygen -p -m PKCS8 -f COPY (it rewrites COPY), or make a signing key with aios-host keygen")
	}
	if !ok {
		return SigningKey{}, fmt.Errorf("a %s is not a key format read here: give a PKCS #8 PRIVATE KEY (as aios-host keygen makes), a PKCS #1 RSA PRIVATE KEY or a SEC 1 EC PRIVATE KEY", block.Type)
	}
	key, err := parse(block.Bytes)
	if err != nil {
		// A key under another of the three labels (a PKCS #1 key
		// labelled PRIVATE KEY) is read, as openssl pkey reads it;
		// x509's error for it advised Go callers ("use
		// ParsePKCS1PrivateKey instead").
		for _, other := range []string{"PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"} {
			if k, e := parsers[other](block.Bytes); e == nil {
				key, err = k, nil
				break
			}
		}
	}
	if err != nil {
		// A well-formed key of an algorithm or curve x509 does not read
		// (Ed448, RSA-PSS, secp256k1) is not "no private key".
		if what := unsupportedKey(block.Bytes); what != "" {
			return SigningKey{}, fmt.Errorf("PEM block %q holds %s, which cannot sign cards: give an RSA (2048 bits or more), ECDSA P-256 or Ed25519 key", block.Type, what)
		}
		return SigningKey{}, fmt.Errorf("PEM block %q holds no private key in PKCS #8, PKCS #1 (RSA) or SEC 1 (EC) form: %w", block.Type, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		if k, ok := key.(*ecdh.PrivateKey); ok { // X25519 (PKCS #8), a key-agreement key
			return SigningKey{}, fmt.Errorf("an %s key is for key agreement and cannot sign: give an RSA (2048 bits or more), ECDSA P-256 or Ed25519 key", k.Curve())
		}
		return SigningKey{}, fmt.Errorf("key type %T cannot sign", key)
	}
	alg, err := AlgorithmFor(signer.Public())
	if err != nil {
		return SigningKey{}, err
	}
	if kid == "" {
		if kid, err = Thumbprint(signer.Public()); err != nil {
			return SigningKey{}, err
		}
	}
	return SigningKey{Key: signer, KeyID: kid, Algorithm: alg}, nil
}

var (
	oidECPublicKey = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	// oidNames names the algorithms and curves of keys x509 does not
	// read, for an error; x509 reads RSA (rsaEncryption), ECDSA on
	// P-224/256/384/521, Ed25519 and X25519.
	oidNames = map[string]string{
		"1.3.101.113":           "Ed448",
		"1.3.101.111":           "X448",
		"1.2.840.113549.1.1.10": "RSASSA-PSS",
		"1.2.840.113549.1.1.7":  "RSAES-OAEP",
		"1.2.840.10040.4.1":     "DSA",
		"1.2.840.10046.2.1":     "Diffie-Hellman",
		"1.3.132.0.10":          "secp256k1",
		"1.3.36.3.3.2.8.1.1.7":  "brainpoolP256r1",
		"1.3.36.3.3.2.8.1.1.11": "brainpoolP384r1",
		"1.3.36.3.3.2.8.1.1.13": "brainpoolP512r1",
		"1.2.156.10197.1.301":   "SM2",
	}
	// x509Curves are the curves x509 reads (P-224, P-256, P-384, P-521).
	x509Curves = []string{"1.3.132.0.33", "1.2.840.10045.3.1.7", "1.3.132.0.34", "1.3.132.0.35"}
)

// unsupportedKey names the key der holds when it is a PKCS #8 or SEC 1
// private key of an algorithm or curve x509 does not read ("an Ed448
// key", "an ECDSA key on curve secp256k1"), else "" (bytes that are no
// such key, or a key x509 reads but found malformed).
func unsupportedKey(der []byte) string {
	name := func(oid asn1.ObjectIdentifier) string {
		if n, ok := oidNames[oid.String()]; ok {
			return n
		}
		return oid.String()
	}
	ecKey := func(curve asn1.ObjectIdentifier) string {
		if len(curve) == 0 || slices.Contains(x509Curves, curve.String()) {
			return ""
		}
		return "an ECDSA key on curve " + name(curve)
	}
	var p8 struct {
		Version    int
		Algo       pkix.AlgorithmIdentifier
		PrivateKey []byte
		Attributes asn1.RawValue `asn1:"optional,tag:0"`
		PublicKey  asn1.RawValue `asn1:"optional,tag:1"`
	}
	if rest, err := asn1.Unmarshal(der, &p8); err == nil && len(rest) == 0 {
		alg := p8.Algo.Algorithm
		switch {
		case alg.Equal(oidECPublicKey):
			var curve asn1.ObjectIdentifier
			if _, err := asn1.Unmarshal(p8.Algo.Parameters.FullBytes, &curve); err != nil {
				return ""
			}
			return ecKey(curve)
		case oidNames[alg.String()] == "":
			if slices.Contains([]string{"1.2.840.113549.1.1.1", "1.3.101.112", "1.3.101.110"}, alg.String()) {
				return "" // RSA, Ed25519, X25519: x509 reads them
			}
			return "a key of algorithm " + alg.String()
		}
		n := name(alg)
		article := "a"
		if strings.ContainsRune("AEIORSX", rune(n[0])) { // an Ed448, an RSASSA-PSS, an SM2, an X448 key
			article = "an"
		}
		return article + " " + n + " key"
	}
	var sec1 struct {
		Version    int
		PrivateKey []byte
		NamedCurve asn1.ObjectIdentifier `asn1:"optional,explicit,tag:0"`
		PublicKey  asn1.BitString        `asn1:"optional,explicit,tag:1"`
	}
	if rest, err := asn1.Unmarshal(der, &sec1); err == nil && len(rest) == 0 && sec1.Version == 1 {
		return ecKey(sec1.NamedCurve)
	}
	return ""
}

// PublicJWK is the public half of the key as a JWK with kid, alg and use.
func (k SigningKey) PublicJWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.Key.Public(), KeyID: k.KeyID, Algorithm: string(k.Algorithm), Use: "sig"}
}

// MarshalJWKS renders public keys as a JWKS document.
func MarshalJWKS(keys ...jose.JSONWebKey) ([]byte, error) {
	set := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(keys))}
	for _, k := range keys {
		set.Keys = append(set.Keys, k.Public())
	}
	return json.MarshalIndent(set, "", "  ")
}

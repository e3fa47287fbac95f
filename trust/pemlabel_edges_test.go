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
	"encoding/pem"
	"strings"
	"testing"
)

// TestMislabeledPEMKeySigns: a key whose PEM label names another of the
// three encodings read here (a PKCS #1 RSA key or a SEC 1 EC key under
// "PRIVATE KEY", a PKCS #8 key under "RSA PRIVATE KEY" or "EC PRIVATE
// KEY", as tools that relabel keys write them), which openssl pkey reads,
// was refused by sign and audit anchor with Go's advice to its own callers,
// "x509: failed to parse private key (use ParsePKCS1PrivateKey instead for
// this key format)". The key is read whatever its label says; bytes that
// are no key in any of the encodings are refused naming the block and the
// encodings tried, not a Go function.
func TestMislabeledPEMKeySigns(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, edk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return der
	}
	sec1, err := x509.MarshalECPrivateKey(ek)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, label string
		der         []byte
		key         crypto.Signer
	}{
		{"PKCS #1 RSA as PKCS #8", "PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rk), rk},
		{"SEC 1 EC as PKCS #8", "PRIVATE KEY", sec1, ek},
		{"PKCS #8 RSA as PKCS #1", "RSA PRIVATE KEY", p8(rk), rk},
		{"PKCS #8 EC as SEC 1", "EC PRIVATE KEY", p8(ek), ek},
		{"PKCS #8 Ed25519 as PKCS #1", "RSA PRIVATE KEY", p8(edk), edk},
	} {
		sk, err := ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: tc.label, Bytes: tc.der}), "")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !tc.key.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(sk.Key.Public()) {
			t.Errorf("%s: read another key than the file's", tc.name)
		}
	}
	_, err = ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{0x30, 0x03, 0x02, 0x01, 0x00}}), "")
	if err == nil || strings.Contains(err.Error(), "Parse") || !strings.Contains(err.Error(), `"PRIVATE KEY"`) || !strings.Contains(err.Error(), "PKCS #8") {
		t.Errorf("junk key: err = %v, want one naming the block and the encodings tried, no Go function", err)
	}
}

// TestX25519KeySaysItCannotSign: an X25519 key (openssl genpkey
// -algorithm x25519, a key-agreement key) given to sign was refused as
// "key type *ecdh.PrivateKey cannot sign", a Go type the operator never
// chose; the error names the key's algorithm and the ones that sign.
func TestX25519KeySaysItCannotSign(t *testing.T) {
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), "")
	if err == nil || strings.Contains(err.Error(), "*ecdh") || !strings.Contains(err.Error(), "X25519") || !strings.Contains(err.Error(), "Ed25519") {
		t.Fatalf("err = %v, want one naming X25519 and the key types that sign, no Go type", err)
	}
}

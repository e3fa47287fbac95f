package trust

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
)

// TestPEMWithECParametersBlock: `openssl ecparam -name prime256v1 -genkey`
// writes an "EC PARAMETERS" block before the "EC PRIVATE KEY" one. Only the
// first PEM block was read, so sign refused the file as `PEM block "EC
// PARAMETERS" is not a private key`; the parameters block is skipped now and
// the key that follows it signs.
func TestPEMWithECParametersBlock(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	// The DER of the named curve prime256v1, as openssl writes it.
	params := []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07}
	file := append(pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: params}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})...)
	sk, err := ParsePrivateKeyPEM(file, "")
	if err != nil {
		t.Fatalf("openssl ecparam -genkey output refused: %v", err)
	}
	if sk.Algorithm != "ES256" || !k.PublicKey.Equal(sk.Key.Public()) {
		t.Fatalf("got %s key %v, want the ES256 key of the file", sk.Algorithm, sk.Key.Public())
	}
	// A file of parameters alone still says it holds no private key.
	_, err = ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: params}), "")
	if err == nil || !strings.Contains(err.Error(), "private key") {
		t.Fatalf("parameters alone: err = %v, want one saying there is no private key", err)
	}
}

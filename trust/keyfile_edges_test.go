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

// TestEncryptedPEMSaysEncrypted: a passphrase-protected key, PKCS #8
// ("ENCRYPTED PRIVATE KEY") or OpenSSL's legacy form (an "RSA PRIVATE KEY"
// with a Proc-Type: 4,ENCRYPTED header), was refused as `PEM block
// "ENCRYPTED PRIVATE KEY" is not a private key` or with an asn1 structure
// error. The error now says the key is encrypted and how to decrypt it.
func TestEncryptedPEMSaysEncrypted(t *testing.T) {
	pkcs8 := pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{0x30, 0x03, 0x02, 0x01, 0x00}})
	legacy := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY",
		Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-128-CBC,80C0A109443078FB98BC022B3FC4CECF"},
		Bytes:   []byte("0123456789abcdef0123456789abcdef")})
	for name, file := range map[string][]byte{"pkcs8": pkcs8, "legacy": legacy} {
		_, err := ParsePrivateKeyPEM(file, "")
		if err == nil || !strings.Contains(err.Error(), "encrypted") || !strings.Contains(err.Error(), "openssl pkey") {
			t.Errorf("%s: err = %v, want one saying the key is encrypted and how to decrypt it", name, err)
		}
	}
}

// TestPEMBundleCertificateBeforeKey: a PEM bundle with the certificate
// first and its key after it (what `openssl req -x509 -keyout same.pem
// -out same.pem`, a server's combined .pem, or a PKCS #12 export writes)
// was refused as `PEM block "CERTIFICATE" is not a private key`, only the
// first block being read. The key in the file is found now; a file that
// holds no private key says which blocks it holds.
func TestPEMBundleCertificateBeforeKey(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{0x30, 0x00}})
	file := append(append([]byte{}, cert...), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})...)
	sk, err := ParsePrivateKeyPEM(file, "")
	if err != nil {
		t.Fatalf("certificate + key bundle refused: %v", err)
	}
	if !k.PublicKey.Equal(sk.Key.Public()) {
		t.Fatal("another key than the bundle's was read")
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParsePrivateKeyPEM(append(cert, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})...), "")
	if err == nil || !strings.Contains(err.Error(), "no private key") || !strings.Contains(err.Error(), `"CERTIFICATE"`) || !strings.Contains(err.Error(), `"PUBLIC KEY"`) {
		t.Fatalf("certificate and public key only: err = %v, want one saying there is no private key and naming the blocks found", err)
	}
}

// TestOpenSSHKeySaysFormat: a key from ssh-keygen ("OPENSSH PRIVATE
// KEY"), or OpenSSL's legacy DSA one, was refused as `PEM block "OPENSSH
// PRIVATE KEY" is not a private key`, which it is. The error now says the
// format is not one sign reads, and names those it does.
func TestOpenSSHKeySaysFormat(t *testing.T) {
	for _, typ := range []string{"OPENSSH PRIVATE KEY", "DSA PRIVATE KEY"} {
		_, err := ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: []byte("openssh-key-v1\x00")}), "")
		if err == nil || strings.Contains(err.Error(), "is not a private key") || !strings.Contains(err.Error(), "PKCS #8") {
			t.Errorf("%s: err = %v, want one naming the formats that are read", typ, err)
		}
	}
	_, err := ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: "OPENSSH PRIVATE KEY", Bytes: []byte("x")}), "")
	if err == nil || !strings.Contains(err.Error(), "keygen") {
		t.Errorf("OpenSSH: err = %v, want one pointing to aios-host keygen", err)
	}
}

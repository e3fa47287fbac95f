package trust

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"strings"
	"testing"
)

// TestUnsupportedPEMKeyNamesItsAlgorithm: a private key of an algorithm or
// curve that cannot sign cards (Ed448, RSA-PSS, secp256k1, as openssl
// genpkey and ecparam make them) was refused as `PEM block "PRIVATE KEY"
// holds no private key in PKCS #8, PKCS #1 (RSA) or SEC 1 (EC) form: x509:
// PKCS#8 wrapping contained private key with unknown algorithm:
// 1.3.101.113` — a well-formed PKCS #8 key said to be in no known form, its
// algorithm an OID. The error says what key it is and which keys sign
// cards, as for a P-384 key or an X25519 key.
func TestUnsupportedPEMKeyNamesItsAlgorithm(t *testing.T) {
	oidEC := asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	secp256k1 := asn1.ObjectIdentifier{1, 3, 132, 0, 10}
	mustDER := func(v any) []byte {
		b, err := asn1.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type pkcs8 struct {
		Version int
		Algo    pkix.AlgorithmIdentifier
		Key     []byte
	}
	type sec1 struct {
		Version    int
		PrivateKey []byte
		NamedCurve asn1.ObjectIdentifier `asn1:"optional,explicit,tag:0"`
	}
	seed := make([]byte, 32)
	seed[31] = 1
	sec1Key := mustDER(sec1{Version: 1, PrivateKey: seed, NamedCurve: secp256k1})
	for _, c := range []struct {
		name, label string
		der         []byte
		want        string
	}{
		{"Ed448", "PRIVATE KEY", mustDER(pkcs8{Algo: pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 3, 101, 113}}, Key: mustDER(make([]byte, 57))}), "an Ed448 key"},
		{"RSA-PSS", "PRIVATE KEY", mustDER(pkcs8{Algo: pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}}, Key: []byte{0x30, 0}}), "an RSASSA-PSS key"},
		{"secp256k1 PKCS8", "PRIVATE KEY", mustDER(pkcs8{Algo: pkix.AlgorithmIdentifier{Algorithm: oidEC, Parameters: asn1.RawValue{FullBytes: mustDER(secp256k1)}}, Key: sec1Key}), "an ECDSA key on curve secp256k1"},
		{"secp256k1 SEC1", "EC PRIVATE KEY", sec1Key, "an ECDSA key on curve secp256k1"},
		{"unknown OID", "PRIVATE KEY", mustDER(pkcs8{Algo: pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 3, 4}}, Key: []byte{1}}), "a key of algorithm 1.2.3.4"},
	} {
		data := pem.EncodeToMemory(&pem.Block{Type: c.label, Bytes: c.der})
		_, err := ParsePrivateKeyPEM(data, "")
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "cannot sign cards") || strings.Contains(msg, "holds no private key") {
			t.Errorf("%s: err = %q, want it to say %s cannot sign cards", c.name, msg, c.want)
		}
	}
	// Bytes that are no key of any algorithm are still said to be so.
	_, err := ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{0x30, 0x03, 0x02, 0x01, 0x00}}), "")
	if err == nil || !strings.Contains(err.Error(), "holds no private key") {
		t.Errorf("garbage: err = %v", err)
	}
}

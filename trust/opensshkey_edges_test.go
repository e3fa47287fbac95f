package trust

import (
	"encoding/pem"
	"strings"
	"testing"
)

// TestOpenSSHKeySaysHowToGetOne: an OpenSSH private key (ssh-keygen's own
// format, "-----BEGIN OPENSSH PRIVATE KEY-----", the key an operator most
// likely has at hand) was refused as `a OPENSSH PRIVATE KEY is not a key
// format read here`, naming the PEM label as if it were a key format and
// saying nothing of how to get one that is. The error names it as
// ssh-keygen's format and says how to convert one or make a key.
func TestOpenSSHKeySaysHowToGetOne(t *testing.T) {
	key := pem.EncodeToMemory(&pem.Block{Type: "OPENSSH PRIVATE KEY", Bytes: []byte("openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none")})
	_, err := ParsePrivateKeyPEM(key, "")
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	for _, want := range []string{"OpenSSH private key", "ssh-keygen -p -m PKCS8", "aios-host keygen"} {
		if !strings.Contains(msg, want) {
			t.Errorf("err = %q, want it to say %s", msg, want)
		}
	}
	if strings.Contains(msg, "a OPENSSH") {
		t.Errorf("err = %q", msg)
	}
}

package trust

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func probeKeys(t *testing.T) (SigningKey, *KeyStore) {
	t.Helper()
	k, err := GenerateKey("EdDSA", "probe")
	if err != nil {
		t.Fatal(err)
	}
	jwks, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	ks, err := ParseJWKS(jwks, abi.Verified, "probe")
	if err != nil {
		t.Fatal(err)
	}
	store := NewKeyStore(nil)
	store.Add(ks...)
	return k, store
}

// TestProbeArtifactCaseVariantMembers: VerifyCard returns the artifact
// pin the signature vouches for. encoding/json reads "Path" as "path", so
// a signed artifact holding both spellings was read as whichever came last,
// and JCS ignores member order: one signature, two artifacts. Such a pin is
// refused.
func TestProbeArtifactCaseVariantMembers(t *testing.T) {
	k, keys := probeKeys(t)
	sum := strings.Repeat("a", 64)
	card := `{"adapter":{"id":"org.example.pin","name":"P","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},"skills":[],` +
		`"artifact":{"path":"tool.wasm","Path":"evil.wasm","sha256":"` + sum + `"}}`
	signed, err := SignCard([]byte(card), k)
	if err != nil {
		t.Fatal(err)
	}
	a, b := `"Path": "evil.wasm"`, `"path": "tool.wasm"`
	if !strings.Contains(string(signed), a) || !strings.Contains(string(signed), b) {
		t.Fatalf("unexpected signed form:\n%s", signed)
	}
	swapped := strings.NewReplacer(a, b, b, a).Replace(string(signed))
	var paths []string
	for _, c := range []string{string(signed), swapped} {
		v, err := VerifyCard(context.Background(), []byte(c), keys)
		if err != nil {
			if !strings.Contains(err.Error(), `"Path"`) {
				t.Errorf("error should name the member: %v", err)
			}
			continue
		}
		paths = append(paths, v.Artifact.Path)
	}
	if len(paths) != 0 {
		t.Fatalf("a pin with case-variant member names was accepted: artifact.path read as %v", paths)
	}
}

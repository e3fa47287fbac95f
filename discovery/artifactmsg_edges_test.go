package discovery

import (
	"strings"
	"testing"
)

// TestArtifactErrorNotSaidOfSignature: a card whose artifact member is
// malformed (a path leaving its folder, a sha256 that is no digest) was
// refused by run, list, verify and sign as "artifact: malformed card
// signature: artifact.sha256 \"ABC\" is not 64 lower-case hex digits",
// also when the card was not signed at all: the signature was blamed for
// a draft's artifact. The error names the artifact member and what is
// wrong with it, not the signature.
func TestArtifactErrorNotSaidOfSignature(t *testing.T) {
	for name, artifact := range map[string]string{
		"path leaves the folder": `{"path": "../other/tool.wasm"}`,
		"absolute path":          `{"path": "/opt/tool.wasm"}`,
		"sha256 no digest":       `{"path": "tool.wasm", "sha256": "ABC"}`,
		"files entry no digest":  `{"path": "tool.wasm", "files": {"lib.js": "x"}}`,
	} {
		card := `{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"}, "capabilities": {}, "skills": [], "artifact": ` + artifact + `}`
		_, err := ParseCard([]byte(card), "a/adapter.json")
		if err == nil {
			t.Errorf("%s: card accepted", name)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "signature") || !strings.Contains(msg, "artifact") || !strings.Contains(msg, "a/adapter.json") {
			t.Errorf("%s: err = %q, want one naming the card and its artifact, not a signature", name, msg)
		}
	}
}

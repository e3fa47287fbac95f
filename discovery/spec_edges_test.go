package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
)

// TestYAMLArtifactFiles: seed 001 §6.1 converts tool.aios.yaml into an
// Adapter Card, and the host's yaml takes "endpoints, requirements,
// extensions, artifact, authentication: as in a card"; docs/trust.md says
// a tool.aios.yaml that "states sha256 or files has them checked the same
// way at load". A yaml's artifact.files was refused as an unknown key
// instead ("field files not found"): a folder could not pin the files its
// artifact imports in its yaml at all. Its pins are checked as a card's:
// a file that differs refuses the unit naming it, matching pins load.
func TestYAMLArtifactFiles(t *testing.T) {
	wrong := strings.Repeat("0", 64)
	lib := "export const word = 'one';\n"
	sum := sha256.Sum256([]byte(lib))
	right := hex.EncodeToString(sum[:])
	env := newEnv(t, "watch: false\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "bad", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"bad-echo"}})
		writeFile(t, filepath.Join(dir, "bad", "lib.js"), lib)
		writeFile(t, filepath.Join(dir, "bad", "tool.aios.yaml"), "tool: {id: org.test.badpin, name: Bad, version: 1.0.0}\n"+
			"artifact: {path: tool.fake, files: {lib.js: '"+wrong+"'}}\n")
		writeFake(t, filepath.Join(dir, "good", "tool.fake"), fakeSpec{ID: "org.test.inner2", Version: "1.0.0", Tools: []string{"good-echo"}})
		writeFile(t, filepath.Join(dir, "good", "lib.js"), lib)
		writeFile(t, filepath.Join(dir, "good", "tool.aios.yaml"), "tool: {id: org.test.goodpin, name: Good, version: 1.0.0}\n"+
			"artifact: {path: tool.fake, files: {lib.js: '"+right+"'}}\n")
	})
	if p := env.h.Registry().Provider("org.test.badpin"); p != nil {
		t.Errorf("org.test.badpin loaded although lib.js does not have the sha256 its tool.aios.yaml pins")
	}
	if e := env.d.Errors()[filepath.Join(env.dir, "bad")]; !strings.Contains(e, "lib.js") || strings.Contains(e, "not found in type") {
		t.Errorf("bad: error %q should name lib.js and its pin, not refuse the files key", e)
	}
	if p := env.h.Registry().Provider("org.test.goodpin"); p == nil {
		t.Errorf("org.test.goodpin (matching artifact.files pins) not loaded: %v", env.d.Errors()[filepath.Join(env.dir, "good")])
	}
}

// TestYAMLErrorsNameYAMLFields: a tool.aios.yaml is converted to a
// card (seed 001 §6.1: tool.* → adapter.*, capabilities[] → skills[]) and
// validated as one, and its errors named the card's fields, which the
// yaml does not have ("tool.aios.yaml: adapter.version: …" for tool.version,
// "skills[0].id" for capabilities[0].id): its author was sent looking for
// members that are not in the file. They name the yaml's own keys (and
// their line: TestParseYAMLValueErrorLines).
func TestYAMLErrorsNameYAMLFields(t *testing.T) {
	base := "tool: {id: org.example.x, name: X, version: 1.0.0}\n"
	for _, c := range []struct{ doc, want, not string }{
		{"tool: {id: X, name: X, version: 1.0.0}\n", "tool.aios.yaml:1: tool.id:", "adapter.id"},
		{"tool: {id: org.example.x, name: X, version: one}\n", "tool.aios.yaml:1: tool.version:", "adapter.version"},
		{"tool: {id: org.example.x, version: 1.0.0}\n", "tool.aios.yaml:1: tool.name:", "adapter.name"},
		{"tool: {id: org.example.x, name: X, version: 1.0.0, protocol_version: 0.2.0}\n", "tool.aios.yaml:1: tool.protocol_version:", "adapter.protocol_version"},
		{base + "capabilities: [{id: a}, {id: 'a b'}]\n", "tool.aios.yaml:2: capabilities[1].id:", "skills["},
		{base + "capabilities: [{id: a, input_schema: {type: string}}]\n", "tool.aios.yaml:2: capabilities[0]", "skills["},
		{base + "endpoints: {rpc: 'gopher://x'}\n", "tool.aios.yaml:2: endpoints.rpc:", "adapter"},
	} {
		_, err := ParseYAML([]byte(c.doc), "tool.aios.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("%q: error %v, want it to start %q and not name %q", c.doc, err, c.want, c.not)
		}
	}
}

package server

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/host"
)

// TestSameTokenTwoNamesRefused: server.tokens[].name names a token
// in the audit records (principal token:NAME) so that two peers of one
// agent can be told apart. Two entries of one agent with the same secret
// and different names were taken: every request was recorded under the
// last entry's name, the first name never appearing, and the operator
// reading the log believed one peer made the other's calls. A secret
// given twice is refused, naming both entries, as it is for two agents.
func TestSameTokenTwoNamesRefused(t *testing.T) {
	cfg := mustParse(t, "audit: {disabled: true}\nagents:\n  peer: {grants: ['CallTool(*)']}\nserver:\n  tokens:\n    - {agent: peer, token: same-secret-1234, name: laptop}\n    - {agent: peer, token: same-secret-1234, name: phone}\n")
	cfg.Data = t.TempDir()
	h, err := host.New(host.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := New(Options{Host: h})
	if err == nil {
		s.Close()
		t.Fatal("two server.tokens entries with one secret (laptop, phone) were taken: the audit log names every request phone")
	}
	for _, w := range []string{"server.tokens[0]", "server.tokens[1]", "laptop", "phone"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal does not name %q: %v", w, err)
		}
	}
}

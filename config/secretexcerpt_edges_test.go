package config

import (
	"strings"
	"testing"
)

// TestTypeErrorDoesNotQuoteSecret: a value of the wrong kind under a key
// that holds secrets (server.tokens written as one token, a token given
// where a mapping goes, an MCP server's env written as NAME=value) was
// refused quoting its first characters, as yaml.v3 words its type errors
// ("cannot unmarshal !!str `sk-live...` into []server.TokenConfig"): part
// of the token reached the terminal and the service's log. Under such a
// key the value is left out now, the line and key path naming it; other
// keys' values are still quoted.
func TestTypeErrorDoesNotQuoteSecret(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	type token struct {
		Agent string `yaml:"agent"`
		Token string `yaml:"token"`
	}
	type mcpServer struct {
		Env   map[string]string `yaml:"env"`
		OAuth struct {
			ClientSecret string `yaml:"client_secret"`
		} `yaml:"oauth"`
	}
	for _, tc := range []struct {
		yaml, section, want string
		out                 any
	}{
		{"server:\n  tokens: " + secret + "\n", "server", "c.yaml:2: server.tokens: cannot unmarshal !!str (value not shown, as it may be a secret) into", &struct {
			Tokens []token `yaml:"tokens"`
		}{}},
		{"server:\n  tokens:\n    - " + secret + "\n", "server", "c.yaml:3: server.tokens[0]: cannot unmarshal !!str (value not shown, as it may be a secret) into", &struct {
			Tokens []token `yaml:"tokens"`
		}{}},
		{"mcp:\n  servers:\n    x:\n      env: OPENAI_API_KEY=" + secret + "\n", "mcp", "c.yaml:4: mcp.servers.x.env: cannot unmarshal !!str (value not shown, as it may be a secret) into", &struct {
			Servers map[string]mcpServer `yaml:"servers"`
		}{}},
		{"mcp:\n  servers:\n    x:\n      oauth: " + secret + "\n", "mcp", "c.yaml:4: mcp.servers.x.oauth: cannot unmarshal !!str (value not shown, as it may be a secret) into", &struct {
			Servers map[string]mcpServer `yaml:"servers"`
		}{}},
	} {
		cfg, err := Parse([]byte(tc.yaml), "c.yaml")
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		var node = cfg.Server
		if tc.section == "mcp" {
			node = cfg.MCP
		}
		err = cfg.Decode(node, tc.section, tc.out)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), secret[:7]) {
			t.Errorf("%q:\n got %v\nwant %s… without any of the value", tc.yaml, err, tc.want)
		}
	}
	// Elsewhere the value still says which one was meant.
	if _, err := Parse([]byte("limits: 5\n"), "c.yaml"); err == nil || !strings.Contains(err.Error(), "!!int `5` into") {
		t.Errorf("limits: 5: %v; want the value quoted", err)
	}
}

package mcp

import (
	"strings"
	"testing"
	"time"
)

// TestEnvSecretNotInErrors: a stdio server given its API key in env
// (GITHUB_PERSONAL_ACCESS_TOKEN: the usual way to configure one) that
// quoted it in a failed call ("bad credentials …", a dump of its
// settings) had it reach the tool's caller and the audit record's error,
// where a URL server's token is taken out. The values of env variables
// whose names say they hold a secret (…KEY…, …TOKEN…, …SECRET…, …PASS…,
// …CREDENTIAL…, …AUTH…) are taken out too, naming the variable; other
// values (a folder, a region) are kept.
func TestEnvSecretNotInErrors(t *testing.T) {
	const secret = "ghp_s3cr3t-value-xyz"
	for _, tc := range []struct {
		name, value string
		hidden      bool
	}{
		{"GITHUB_PERSONAL_ACCESS_TOKEN", secret, true},
		{"OPENAI_API_KEY", secret, true},
		{"DB_PASSWORD", secret, true},
		{"DOCS_DIR", "/srv/docs-folder", false},
	} {
		cfg := fakeConfig(t, "good")
		cfg.Env[tc.name] = tc.value
		cfg.Env["AIOS_MCP_FAKE_ECHO"] = tc.name
		_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
		if err != nil {
			t.Fatal(err)
		}
		_, err = call(t, rec.provider("org.aios.mcp.fake"), "mcp-fake-fail", map[string]any{}, 10*time.Second)
		if err == nil {
			t.Fatalf("%s: the failing tool succeeded", tc.name)
		}
		msg := err.Error()
		if tc.hidden {
			if strings.Contains(msg, tc.value) || !strings.Contains(msg, "[redacted: mcp.servers.fake env "+tc.name+"]") {
				t.Errorf("%s: %s; want its value taken out, naming the variable", tc.name, msg)
			}
		} else if !strings.Contains(msg, tc.value) {
			t.Errorf("%s: %s; want its value kept", tc.name, msg)
		}
	}
}

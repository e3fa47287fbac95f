package mcp

import (
	"strings"
	"testing"
)

// TestUnknownProtocolVersionSaysWhat: a server whose initialize answer
// names a protocol version the bridge does not speak, none at all, or is
// null failed to connect with the go-sdk's `unsupported protocol version:
// ""` — for a null result too — saying neither that it was the server's
// initialize answer nor which versions the bridge speaks.
func TestUnknownProtocolVersionSaysWhat(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"initoldversion", `protocol version "2024-10-07"`},
		{"initnoversion", "no protocolVersion"},
		{"initnull", "no protocolVersion"},
	} {
		_, _, _, err := startBridge(t, map[string]ServerConfig{"p": p256Config(t, tc.mode)})
		t.Logf("%s: %v", tc.mode, err)
		if err == nil {
			t.Errorf("%s: connected", tc.mode)
			continue
		}
		for _, w := range []string{tc.want, "initialize", "2024-11-05", ProtocolVersion} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the error does not say %q: %v", tc.mode, w, err)
			}
		}
	}
}

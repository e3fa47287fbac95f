package mcp

import "testing"

// A URL server's tools require Network(<host>) with the host in the form
// callers' grants are matched in (lower case, no final dot).
func TestEndpointHostCanonical(t *testing.T) {
	for url, want := range map[string]string{
		"https://API.Example.COM/mcp":    "api.example.com",
		"https://api.example.com.:8443/": "api.example.com",
		"http://[::FFFF:127.0.0.1]:9/":   "127.0.0.1",
	} {
		if got := (ServerConfig{URL: url}).endpointHost(); got != want {
			t.Errorf("endpointHost(%s) = %q, want %q", url, got, want)
		}
	}
}

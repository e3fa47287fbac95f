// Package origin compares URLs' origins: the host follows an endpoint's
// redirects within its origin only (the remote adapters of discovery, the
// MCP bridge, the inference client), since Go's client keeps an
// Authorization header on a redirect to the same host name on another
// port or scheme.
package origin

import (
	"net/url"
	"strings"
)

// Same says whether u has origin's scheme, host and port, default ports
// made explicit (https://a and https://a:443 are one origin), scheme and
// host compared without case. A nil URL has no origin.
func Same(u, origin *url.URL) bool {
	if u == nil || origin == nil {
		return false
	}
	return strings.EqualFold(u.Scheme, origin.Scheme) && strings.EqualFold(u.Hostname(), origin.Hostname()) && port(u) == port(origin)
}

// port is u's port, or its scheme's default.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

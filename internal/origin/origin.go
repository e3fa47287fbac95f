// Package origin compares URLs' origins: the host follows an endpoint's
// redirects within its origin only (the remote adapters of discovery, the
// MCP bridge, the inference client), since Go's client keeps an
// Authorization header on a redirect to the same host name on another
// port or scheme.
package origin

import (
	"net"
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

// LoopbackHost says whether hostport (a Host header, a URL's host) names
// this machine by a loopback name or address ("localhost", 127.0.0.0/8,
// ::1), with or without a port.
func LoopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

package python

import (
	"errors"
	"strings"
	"testing"
)

// TestNamedHostNotMetadataService: a host name granted as Network(host)
// reaches another machine, and the host refuses the address it resolves
// to when it is one of this machine or its link, so that whoever controls
// the name's DNS cannot point it at a cloud's metadata service (docs/
// python.md) — but only link-local addresses were refused, which covers
// 169.254.169.254 and not AWS's IPv6 endpoint fd00:ec2::254 (a unique
// local address) nor Alibaba Cloud's 100.100.100.200, from which a tool
// granted Network(api.vendor.example) could read the instance's
// credentials through a rebinding name. Both are refused as a name's
// address, naming the grant that reaches them; other addresses pass.
func TestNamedHostNotMetadataService(t *testing.T) {
	for _, tc := range []struct{ address, addr string }{
		{"[fd00:ec2::254]:80", "fd00:ec2::254"},
		{"100.100.100.200:80", "100.100.100.200"},
		{"[::ffff:100.100.100.200]:80", "100.100.100.200"},
		{"169.254.169.254:80", "169.254.169.254"},
	} {
		err := namedLocal("api.vendor.example", tc.address)
		var le *localAddrError
		if !errors.As(err, &le) || le.addr.String() != tc.addr || !strings.Contains(err.Error(), "Network("+tc.addr+")") {
			t.Errorf("api.vendor.example resolving to %s: %v, want refused naming Network(%s)", tc.address, err, tc.addr)
		}
	}
	for _, address := range []string{"10.0.0.5:443", "[fd00::5]:443", "[fd00:ec2::253]:443", "93.184.216.34:443", "100.100.100.201:80"} {
		if err := namedLocal("api.vendor.example", address); err != nil {
			t.Errorf("api.vendor.example resolving to %s: %v, want it to pass (another machine)", address, err)
		}
	}
}

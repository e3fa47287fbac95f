package python_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

const dnsFailSrc = `import socket
from aios_sdk import Agent, Capability, tool

@Agent(id="org.test.dnsfail", capabilities=[Capability.Network("*.invalid")])
class DNSFail:
    @tool(name="connect-unknown", parameters={})
    def connect_unknown(self, params):
        try:
            socket.create_connection(("no-such-host.invalid", 80), timeout=5).close()
            return "connected"
        except socket.gaierror as e:
            return "gaierror %s" % (e.errno == socket.EAI_NONAME)
        except OSError as e:
            return "%s errno=%s: %s" % (type(e).__name__, e.errno, e)
`

// A brokered socket.create_connection to a name that does not resolve
// raised a bare OSError("net_connect …: lookup …: no such host"), where
// Python's own raises socket.gaierror (EAI_NONAME), which tools catch to
// tell "no such host" from other failures. The host now says the lookup
// failed and the SDK raises socket.gaierror.
func TestNetworkUnknownHostIsGaierror(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := net.DefaultResolver.LookupHost(ctx, "no-such-host.invalid"); err == nil {
		t.Skip("no-such-host.invalid resolves here")
	} else if de, ok := err.(*net.DNSError); !ok || !de.IsNotFound {
		t.Skipf("this machine's resolver does not answer NXDOMAIN for .invalid: %v", err)
	}
	h := netHost(t)
	loadTool(t, h, "dnsfail.py", dnsFailSrc)
	v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "wide", Tool: "connect-unknown", Params: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := v.(string); !strings.HasPrefix(s, "gaierror True") {
		t.Fatalf("create_connection to no-such-host.invalid: %v; want socket.gaierror with EAI_NONAME", v)
	}
}

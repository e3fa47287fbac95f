package python_test

import (
	"context"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

const refusedSrc = `import socket
from aios_sdk import Agent, Capability, tool

@Agent(id="org.test.refused", capabilities=[Capability.Network("127.0.0.1")])
class Refused:
    @tool(name="connect-refused", parameters={"port": {"type": "integer"}})
    def connect_refused(self, params):
        try:
            socket.create_connection(("127.0.0.1", params["port"]), timeout=5).close()
            return "connected"
        except ConnectionRefusedError as e:
            return "ConnectionRefusedError errno=%s" % e.errno
        except OSError as e:
            return "%s errno=%s: %s" % (type(e).__name__, e.errno, e)
`

// A brokered socket.create_connection to a port nobody listens on raised
// a bare OSError("net_connect 127.0.0.1:N: dial tcp …: connection
// refused") without an errno, so a tool's "except ConnectionRefusedError"
// (a retry loop, a port probe), which catches it under plain Python, let
// it through. The host now sends the dial's errno with the error and the
// SDK raises OSError(errno, message): ConnectionRefusedError, errno ECONNREFUSED.
func TestNetworkConnectRefusedIsConnectionRefusedError(t *testing.T) {
	h := netHost(t)
	loadTool(t, h, "refused.py", refusedSrc)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "netter", Tool: "connect-refused", Params: map[string]any{"port": int64(port)}})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("ConnectionRefusedError errno=%d", int(syscall.ECONNREFUSED)); v != want {
		t.Fatalf("create_connection to a closed port: %v; want %s", v, want)
	}
}

package python_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/runtimes/python"
)

// TestBytesResultAlike: a result holding bytes is refused in the same
// words over either wire format, as a set's or a Decimal's is
// (TestObjectErrorsAlike). Over MessagePack it read "… not JSON: bytes
// (bytes) at $.b[1]; store it …", over JSON "… not JSON: Object of type
// bytes is not JSON serializable (at $.b[1]); store it …".
func TestBytesResultAlike(t *testing.T) {
	const src = `
from aios_sdk import tool
@tool(name="b", parameters={})
def b(params):
    return {"b": [1, {"bytes": b"ab", "bytearray": bytearray(b"ab"), "memoryview": memoryview(b"ab")}[params["k"]]]}
`
	got := map[string][]string{}
	for _, wire := range []string{"msgpack", "json"} {
		h := newHost(t, newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 }))
		loadTool(t, h, "b.py", src)
		for _, k := range []string{"bytes", "bytearray", "memoryview"} {
			_, err := call(h, "b", map[string]any{"k": k}, 10*time.Second)
			got[k] = append(got[k], fmt.Sprint(err))
		}
	}
	for k, v := range got {
		if v[0] != v[1] || !strings.Contains(v[0], "Object of type "+k+" is not JSON serializable (at $.b[1])") {
			t.Errorf("%s:\n msgpack: %s\n json:    %s", k, v[0], v[1])
		}
	}
}

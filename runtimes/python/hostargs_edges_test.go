package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestPythonHostArgTypes: a Python tool's host-call argument of the
// wrong type was read as "" by the host: ctx.spaces.read(oid, 5) searched
// every readable space and returned the object (ctx.ai.complete(123) went
// to the backend with an empty prompt: internal/hostop's
// TestArgsOfWrongType). It raises InvalidParams now.
func TestPythonHostArgTypes(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "argtypes.py", `
from aios_sdk import tool, provider, Capability
provider(id="org.test.argtypes", capabilities=[Capability.ReadSpace("images")])

@tool(name="numspace", description="space as a number")
async def numspace(params, ctx):
    obj = await ctx.spaces.read(params["id"], 5)
    return {"space": obj.space}
`)
	id, err := h.Spaces().Put("images", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(h, "numspace", map[string]any{"id": id}, 10*time.Second)
	wantCode(t, err, abi.InvalidParams, `"space" must be a string`)
}

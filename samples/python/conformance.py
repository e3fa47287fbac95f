"""The python conformance provider (conformance/README.md, TEAM.md contract).

Provider org.aios.conformance.python asks for CallTool(*) only and offers
echo, add, fail, sleep, crash, secret and nested.
"""

import os
import time

from aios_sdk import Agent, Capability, ToolError, tool


@Agent(id="org.aios.conformance.python", name="Conformance (python)", version="1.0.0",
       capabilities=[Capability.CallTool("*")])
class Conformance:

    @tool(name="echo", description="Return params.value unchanged",
          parameters={"type": "object", "properties": {"value": {}}, "required": ["value"]})
    def echo(self, params):
        return {"value": params["value"]}

    @tool(name="add", description="Add two integers",
          parameters={"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                      "required": ["a", "b"], "additionalProperties": False})
    def add(self, params):
        # A whole float (2.0, 2**53 as a float) is an integer to the schema;
        # int() of it is exact, where float arithmetic rounds past 2**53 and
        # answers a float.
        return {"sum": int(params["a"]) + int(params["b"])}

    @tool(name="fail", description="Fail with ProviderError carrying params.message",
          parameters={"message": {"type": "string"}})
    def fail(self, params):
        raise ToolError(ToolError.ProviderError, params["message"])

    @tool(name="sleep", description="Return after params.ms milliseconds",
          parameters={"ms": {"type": "integer", "minimum": 0}})
    def sleep(self, params):
        # time.sleep of more than about 2**63 ns raises OverflowError: sleep in steps.
        end = time.monotonic() + params["ms"] / 1000.0
        while (left := end - time.monotonic()) > 0:
            time.sleep(min(left, 60.0))
        return {"slept": params["ms"]}

    @tool(name="crash", description="Kill the worker process", parameters={"type": "object"})
    def crash(self, params):
        os.abort()

    @tool(name="secret", description="Needs ReadSpace(secret)", parameters={"type": "object"},
          capability_required=Capability.ReadSpace("secret"))
    def secret(self, params):
        return {"ok": True}

    @tool(name="nested", description="Call params.tool with params.params",
          parameters={"tool": {"type": "string"}, "params": {"type": "object"}})
    async def nested(self, params, ctx):
        return {"result": await ctx.call_tool(params["tool"], params["params"])}

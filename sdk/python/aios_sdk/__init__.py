"""aios_sdk - write aios-host tool providers in Python (standard library only).

    from aios_sdk import Agent, tool, Capability

    @Agent(name="PDF Tools", capabilities=[Capability.ReadSpace("documents")])
    class PdfTools:
        @tool(name="pdf-extract", description="...",
              capability_required=Capability.ReadSpace("documents"),
              parameters={"object_id": {"type": "string"}, "pages": {"type": "string"}})
        async def extract(self, params, ctx):
            obj = await ctx.spaces.read(params["object_id"])
            ...

A file of module-level @tool functions describes its provider with
provider(id=..., capabilities=[...]) instead of an @Agent class.

A provider file is run by the host in a sandboxed worker process (see
docs/python.md); this package is put on its path by the host.
"""

from ._core import AI, Agent, Capability, Completion, Context, Object, Spaces, ToolError, build_parameters, provider, tool

__all__ = ["Agent", "provider", "tool", "Capability", "ToolError", "Context", "Spaces", "AI", "Completion", "Object", "build_parameters"]
__version__ = "0.1.0"

"""Cross-runtime demo: a Python tool that calls the WASM image-resize tool.

py-thumbnail asks the host to run image-resize (a Go guest compiled to
WebAssembly, samples/wasm/image-resize) as a nested call: the host checks
capabilities (the caller's grants intersected with this provider's),
validates the params against image-resize's schema and audits both calls.
The image never passes through Python: only ObjectIds do.
"""

from aios_sdk import Agent, Capability, tool


@Agent(
    id="org.aios.samples.py-thumbnail",
    name="Thumbnail (Python)",
    version="1.0.0",
    capabilities=[Capability.CallTool("image-resize"), Capability.ReadSpace("*"), Capability.WriteSpace("*")],
)
class Thumbnail:

    @tool(
        name="py-thumbnail",
        description="Make a square PNG thumbnail of an image object (Python calling the WASM image-resize tool)",
        parameters={
            "object_id": {"type": "string", "description": "ObjectId of a PNG or JPEG image"},
            "size": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 64,
                     "description": "Edge length in pixels"},
        },
    )
    async def thumbnail(self, params, ctx):
        size = params.get("size", 64)
        r = await ctx.call_tool("image-resize", {
            "object_id": params["object_id"], "width": size, "height": size, "format": "png",
        })
        await ctx.log("thumbnail of", params["object_id"], "is", r["output_id"])
        return {
            "thumbnail_id": r["output_id"],
            "original_size": r["original_size"],
            "thumbnail_size": r["resized_size"],
            "runtime_chain": "python -> wasm",
        }

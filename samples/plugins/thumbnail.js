// Cross-runtime demo: a JavaScript tool that calls the WASM `image-resize`
// tool through the host pipeline (capability-checked, schema-validated,
// audited as a nested call) and reports the thumbnail's ObjectId.
aios.provider({
  id: 'org.aios.samples.thumbnail',
  name: 'Thumbnail (JavaScript)',
  description: 'Makes square thumbnails by calling the WASM image-resize tool',
  // image-resize reads and writes Spaces; a nested call holds only what both
  // the caller and this provider hold, so the provider asks for them too.
  capabilities: ['CallTool(image-resize)', 'ReadSpace(*)', 'WriteSpace(*)'],
});

aios.registerTool({
  name: 'make-thumbnail',
  description: 'Make a square PNG thumbnail of an image object (calls the WASM image-resize tool)',
  parameters: {
    object_id: { type: 'string', description: 'ObjectId of the image' },
    size: { type: 'integer', minimum: 1, maximum: 4096, default: 64, description: 'Edge length in pixels' },
  },
}, async (params, ctx) => {
  const size = params.size ?? 64;
  const r = await ctx.callTool('image-resize', {
    object_id: params.object_id, width: size, height: size, format: 'png',
  });
  const outputId = r.output_id ?? r['output-id'];
  ctx.log('thumbnail of', params.object_id, 'is', outputId);
  return {
    thumbnail_id: outputId,
    original_size: r.original_size ?? r['original-size'],
    thumbnail_size: r.resized_size ?? r['resized-size'],
    runtime_chain: 'js -> wasm',
  };
});

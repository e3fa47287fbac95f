// Cross-runtime demo: a JavaScript tool that calls a tool of an imported
// MCP server (server-everything's `echo`, bridged as mcp-everything-echo)
// through the host pipeline: capability-checked, schema-validated, audited
// as a nested call whose provider is marked untrusted.
aios.provider({
  id: 'org.aios.samples.mcp-relay',
  name: 'MCP relay (JavaScript)',
  description: 'Calls the echo tool of the imported MCP server "everything"',
  capabilities: ['CallTool(mcp-everything-*)'],
});

aios.registerTool({
  name: 'relay-echo',
  description: 'Echo a message through the MCP server "everything" (js -> mcp)',
  mcp_exportable: true,
  parameters: {
    message: { type: 'string', description: 'What to echo' },
  },
}, async (params, ctx) => {
  const r = await ctx.callTool('mcp-everything-echo', { message: params.message });
  const text = (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  return { echoed: text, runtime_chain: 'js -> mcp' };
});

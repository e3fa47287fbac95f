// The conformance provider in plain JavaScript (see TEAM.md "The
// conformance contract"), written with aios.registerTool. The harness loads
// it as the "js" fixture.
aios.provider({
  id: 'org.aios.conformance.js',
  name: 'Conformance (JavaScript)',
  capabilities: ['CallTool(*)'],
});

const obj = (properties, required, extra) => Object.assign({ type: 'object', properties, required }, extra);

aios.registerTool({ name: 'echo', parameters: obj({ value: {} }, ['value']) },
  (params) => ({ value: params.value }));

aios.registerTool({
  name: 'add',
  parameters: obj({ a: { type: 'integer' }, b: { type: 'integer' } }, ['a', 'b'], { additionalProperties: false }),
}, ({ a, b }) => ({ sum: BigInt(a) + BigInt(b) })); // exact: a, b beyond ±(2^53−1) arrive as BigInt

aios.registerTool({ name: 'fail', parameters: obj({ message: { type: 'string' } }, ['message']) },
  (params) => { throw new Error(params.message); });

// sleep busy-waits: the deadline must interrupt running JS, not only awaits.
aios.registerTool({ name: 'sleep', parameters: obj({ ms: { type: 'integer', minimum: 0 } }, ['ms']) },
  (params) => {
    const end = Date.now() + Number(params.ms); // a ms past 2^53 arrives as a BigInt
    while (Date.now() < end) { /* spin */ }
    return { slept: params.ms };
  });

// crash: unbounded recursion is goja's uncatchable stack overflow, reported
// as ProviderCrashed (the JS analogue of a trap).
function recurse(n) { return recurse(n + 1) + 1; }
aios.registerTool({ name: 'crash', parameters: { type: 'object' } }, () => ({ never: recurse(0) }));

aios.registerTool({ name: 'secret', parameters: { type: 'object' }, capabilityRequired: ['ReadSpace(secret)'] },
  () => ({ ok: true }));

aios.registerTool({
  name: 'nested',
  parameters: obj({ tool: { type: 'string' }, params: { type: 'object' } }, ['tool', 'params']),
}, async (params, ctx) => ({ result: await ctx.callTool(params.tool, params.params) }));

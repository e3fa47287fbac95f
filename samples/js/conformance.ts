// The conformance provider in TypeScript (see TEAM.md "The conformance
// contract"), written with the SDK's decorators. The harness loads it as
// the "ts" fixture.
import { Agent, tool, Capability } from 'aios-sdk';

// crash: a JS "trap" is a fault the runtime cannot recover from in JS code.
// Unbounded recursion overflows goja's call stack (an uncatchable
// StackOverflowError), which the runtime reports as ProviderCrashed and then
// discards the runtime.
function recurse(n: number): number {
  return recurse(n + 1) + 1;
}

@Agent({
  id: 'org.aios.conformance.ts',
  name: 'Conformance (TypeScript)',
  capabilities: [Capability.CallTool('*')],
})
class Conformance {
  @tool({
    name: 'echo',
    description: 'Returns {value: params.value} unchanged',
    parameters: { type: 'object', properties: { value: {} }, required: ['value'] },
  })
  echo(params: { value: unknown }) {
    return { value: params.value };
  }

  @tool({
    name: 'add',
    description: 'Adds two integers',
    parameters: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  })
  add(params: { a: number | bigint; b: number | bigint }) {
    // Exact: integers beyond ±(2^53−1) arrive as BigInt, and a BigInt sum
    // goes back as an integer (refused past the 64-bit range).
    return { sum: BigInt(params.a) + BigInt(params.b) };
  }

  @tool({
    name: 'fail',
    description: 'Fails with a ProviderError containing params.message',
    parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  })
  async fail(params: { message: string }): Promise<never> {
    throw new Error(params.message);
  }

  @tool({
    name: 'sleep',
    description: 'Returns {slept: ms} after at least ms milliseconds',
    parameters: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
  })
  async sleep(params: { ms: number | bigint }) {
    // A ms past 2^53 arrives as a BigInt, and setTimeout waits at most
    // 2^31-1 ms (a longer delay fires after 1 ms, as in node): wait in steps
    // until the end.
    const end = Date.now() + Number(params.ms);
    for (let left = end - Date.now(); left > 0; left = end - Date.now()) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, 2 ** 31 - 1)));
    }
    return { slept: params.ms };
  }

  @tool({ name: 'crash', description: 'Overflows the call stack', parameters: { type: 'object' } })
  crash() {
    return { never: recurse(0) };
  }

  @tool({
    name: 'secret',
    description: 'Needs ReadSpace(secret) from its caller',
    parameters: { type: 'object' },
    capabilityRequired: [Capability.ReadSpace('secret')],
  })
  secret() {
    return { ok: true };
  }

  @tool({
    name: 'nested',
    description: 'Calls another tool through the host and returns {result}',
    parameters: {
      type: 'object',
      properties: { tool: { type: 'string' }, params: { type: 'object' } },
      required: ['tool', 'params'],
    },
  })
  async nested(params: { tool: string; params: Record<string, unknown> }, ctx: AgentContext) {
    return { result: await ctx.callTool(params.tool, params.params) };
  }
}

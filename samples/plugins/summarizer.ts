import { Agent, tool, Capability } from 'aios-sdk';

@Agent({
  name: 'Summarizer',
  capabilities: [Capability.ReadSpace('documents'), Capability.Inference],
})
class Summarizer {

  @tool({
    name: 'summarize',
    description: 'Summarize a document using AI inference',
    capabilityRequired: Capability.ReadSpace('documents'),
    parameters: {
      object_id: { type: 'string', description: 'ObjectId of the document' },
      max_words: { type: 'integer', description: 'Maximum summary length', default: 200 },
    },
  })
  async summarize(params: { object_id: string; max_words?: number }, ctx: AgentContext) {
    const doc = await ctx.spaces.read(params.object_id);
    const summary = await ctx.ai.complete(
      `Summarize in ${params.max_words ?? 200} words: ${doc}`,
      { maxTokens: params.max_words ?? 200 }
    );
    return { summary, word_count: summary.split(' ').length };
  }
}

// The module 'aios-sdk' as seen by bundled providers: a view of the `aios`
// global that the SDK prelude defines.
const a = globalThis.aios;
export const Agent = a.Agent;
export const tool = a.tool;
export const Capability = a.Capability;
export const registerTool = a.registerTool;
export const provider = a.provider;
export const ToolError = a.ToolError;
export default a;

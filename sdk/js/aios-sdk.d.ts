// Type declarations for the aios-sdk module and the `aios` global that
// JavaScript/TypeScript tool providers see inside aios-host (runtime "js"
// and "ts", goja). Providers import from 'aios-sdk'; the host resolves that
// module to its built-in SDK at load, so nothing is installed at run time.
// See docs/js.md.

/** A JSON value as carried by the ABI. */
type AiosJSON = null | boolean | number | bigint | string | AiosJSON[] | { [key: string]: AiosJSON };

/** A JSON Schema document (kept loose on purpose). */
interface AiosJSONSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  [keyword: string]: unknown;
}

/** The shorthand property schema: `optional: true` drops it from `required`. */
interface AiosPropertySchema extends AiosJSONSchema {
  optional?: boolean;
}

/** Options of ctx.ai.complete. */
interface AiosCompleteOptions {
  maxTokens?: number;
  max_tokens?: number;
  system?: string;
  temperature?: number;
  model?: string;
  /** Where the backend ends its answer: one stop sequence or several. */
  stop?: string | string[];
}

/** What ctx.ai.completion answers. */
interface AiosCompletion {
  text: string;
  model: string;
  finishReason: string;
}

/** The call being served. */
interface AiosCallInfo {
  id: string;
  parentId: string;
  caller: string;
  tool: string;
  depth: number;
  /** Absolute deadline in milliseconds since the epoch. */
  deadline: number;
}

interface AiosLog {
  (...args: unknown[]): void;
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/**
 * What a handler receives as its second argument. Every method goes through
 * the host's capability checks for this call (caller's grants intersected
 * with the provider's); refusals reject with a ToolError.
 */
interface AgentContext {
  readonly spaces: {
    /**
     * Reads an object by ObjectId ("sha256:<hex>"), searching every space
     * the call may read unless `space` is given. Resolves to a string when
     * the bytes are valid UTF-8, otherwise to a Uint8Array.
     */
    read(id: string, space?: string): Promise<string | Uint8Array>;
    /** Reads an object's bytes. */
    readBytes(id: string, space?: string): Promise<Uint8Array>;
    /** Stores data (a string is stored as UTF-8; a DataView, the bytes it views) and resolves to its ObjectId. Needs WriteSpace(space). */
    write(space: string, data: string | Uint8Array | ArrayBuffer | DataView): Promise<string>;
  };
  /** Calls another tool through the host pipeline (any runtime). Needs CallTool(name). */
  callTool<T = any>(name: string, params?: Record<string, unknown>, version?: string): Promise<T>;
  /** The same as callTool (the seed's and the Python SDK's spelling). */
  call_tool<T = any>(name: string, params?: Record<string, unknown>, version?: string): Promise<T>;
  /** Writes to the host log, tagged with the provider and call. */
  readonly log: AiosLog;
  readonly ai: {
    /** Runs a completion on the configured inference backend. Needs Inference. */
    complete(prompt: string, opts?: AiosCompleteOptions): Promise<string>;
    /**
     * complete, answering the text with the model that wrote it and why the
     * backend stopped: finishReason "length" is an answer cut at maxTokens,
     * "stop" a whole one, "" when the backend said nothing.
     */
    completion(prompt: string, opts?: AiosCompleteOptions): Promise<AiosCompletion>;
  };
  readonly call: AiosCallInfo;
}

type AiosCapability = string;

/** AgentContext under another name, for re-export from 'aios-sdk'. */
type AiosAgentContext = AgentContext;

interface AiosToolDefinition {
  /** Tool name: 1-128 of A-Z a-z 0-9 _ - . (defaults to the method name for @tool). */
  name?: string;
  description?: string;
  /** A JSON Schema, or the seed's shorthand: a map of property schemas. */
  parameters?: AiosJSONSchema | Record<string, AiosPropertySchema>;
  returns?: AiosJSONSchema;
  capabilityRequired?: AiosCapability | AiosCapability[];
  version?: string;
  tags?: string[];
  examples?: string[];
  idempotent?: boolean;
  deprecated?: boolean;
  /** Why the tool is deprecated and what to use instead; returned to callers. Sets deprecated. */
  deprecation?: { since?: string; message?: string; replacement?: string };
  latencyClass?: 'fast' | 'normal' | 'slow';
  permissionLevel?: 'public' | 'low' | 'medium' | 'high' | 'critical';
  mcpExportable?: boolean;
  /** The same as capabilityRequired (the Python SDK's spelling). */
  capability_required?: AiosCapability | AiosCapability[];
  /** The same as latencyClass. */
  latency_class?: 'fast' | 'normal' | 'slow';
  /** The same as permissionLevel. */
  permission_level?: 'public' | 'low' | 'medium' | 'high' | 'critical';
  /** The same as mcpExportable. */
  mcp_exportable?: boolean;
}

interface AiosAgentOptions {
  /** Reverse-domain provider id; defaults to local.<file name>. */
  id?: string;
  name?: string;
  version?: string;
  description?: string;
  /** The grants the provider asks for; the host caps them by trust level. */
  capabilities?: AiosCapability[];
}

type AiosHandler = (params: any, ctx: AgentContext) => unknown;

declare module 'aios-sdk' {
  export const Capability: {
    ReadSpace(space: string): AiosCapability;
    WriteSpace(space: string): AiosCapability;
    Network(host: string): AiosCapability;
    CallTool(pattern: string): AiosCapability;
    readonly Inference: AiosCapability;
  };

  /**
   * Class decorator: registers the class's @tool methods on one instance.
   * `@Agent({...})`, `@Agent()` or bare `@Agent`.
   */
  export function Agent(opts?: AiosAgentOptions): any;
  /** Bare `@Agent` (TC39 standard or experimentalDecorators). */
  export function Agent(cls: abstract new (...args: any[]) => unknown, context?: ClassDecoratorContext): any;
  /**
   * Method decorator (TC39 standard or experimentalDecorators):
   * `@tool({...})`, `@tool()` or bare `@tool` (the name is the method's).
   */
  export function tool(def?: AiosToolDefinition): any;
  /** Bare `@tool`, TC39 standard decorators. */
  export function tool(method: (...args: any[]) => unknown, context: ClassMethodDecoratorContext): any;
  /** Bare `@tool`, experimentalDecorators. */
  export function tool(prototype: object, key: string | symbol, descriptor?: PropertyDescriptor): any;
  /** Registers a tool without classes. */
  export function registerTool(def: AiosToolDefinition & { name: string }, handler: AiosHandler): void;
  /** Sets the provider's id, name, version, description and capabilities. */
  export function provider(opts: AiosAgentOptions): void;

  /** An error with an ABI error code; thrown errors keep their code. */
  export class ToolError extends Error {
    constructor(code: string, message: string, data?: unknown);
    code: string;
    data?: unknown;
    /** A constant for every code of the ABI, as in the Python SDK. */
    static readonly InvalidParams: 'InvalidParams';
    static readonly NotFound: 'NotFound';
    static readonly CapabilityDenied: 'CapabilityDenied';
    static readonly RateLimited: 'RateLimited';
    static readonly Timeout: 'Timeout';
    static readonly ProviderError: 'ProviderError';
    static readonly ProviderCrashed: 'ProviderCrashed';
    static readonly Unavailable: 'Unavailable';
    static readonly Internal: 'Internal';
    static readonly InvalidResult: 'InvalidResult';
    static readonly Conflict: 'Conflict';
    static readonly InvalidRequest: 'InvalidRequest';
    static readonly Cancelled: 'Cancelled';
    static readonly DepthExceeded: 'DepthExceeded';
    static readonly TooLarge: 'TooLarge';
  }

  const aios: {
    Capability: typeof Capability;
    Agent: typeof Agent;
    tool: typeof tool;
    registerTool: typeof registerTool;
    provider: typeof provider;
    ToolError: typeof ToolError;
  };
  export default aios;
  export type AgentContext = AiosAgentContext;
  export type ToolDefinition = AiosToolDefinition;
  export type AgentOptions = AiosAgentOptions;
}

declare const aios: typeof import('aios-sdk').default;

declare function setTimeout(fn: (...args: any[]) => void, ms?: number, ...args: any[]): number;
declare function clearTimeout(id?: number): void;
declare function queueMicrotask(fn: () => void): void;
declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  debug(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  /** The value as console.log writes it (options are not followed). */
  dir(value?: unknown, options?: unknown): void;
  dirxml(...args: unknown[]): void;
  /** The data as console.log writes it (columns are not followed). */
  table(data?: unknown, columns?: string[]): void;
  /** "Trace: …" and the stack. */
  trace(...args: unknown[]): void;
  /** "Assertion failed: …" at level error when condition is falsy. */
  assert(condition?: unknown, ...args: unknown[]): void;
  time(label?: string): void;
  timeLog(label?: string, ...args: unknown[]): void;
  timeEnd(label?: string): void;
  count(label?: string): void;
  countReset(label?: string): void;
  /** Writes its arguments, if any; lines are not indented. */
  group(...args: unknown[]): void;
  groupCollapsed(...args: unknown[]): void;
  groupEnd(): void;
};

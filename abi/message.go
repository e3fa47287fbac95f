package abi

import "time"

// Runtime names, as used in ProviderInfo.Runtime, the CLI and the conformance matrix.
const (
	RuntimeNative    = "native"
	RuntimeWASM      = "wasm"
	RuntimeComponent = "component"
	RuntimeJS        = "js"
	RuntimeTS        = "ts"
	RuntimePython    = "python"
	RuntimeMCP       = "mcp"
	RuntimeRemote    = "remote"
)

// JSFolderEntries are the names a JS/TS provider folder's entry may have,
// in the order one is chosen (discovery, the JS runtime's bundler and
// aios-host inspect alike): every extension a provider file may have.
var JSFolderEntries = []string{"index.ts", "index.mts", "index.js", "index.mjs"}

// Permission levels of a tool (seed 001 §2.3).
const (
	PermissionPublic   = "public"
	PermissionLow      = "low"
	PermissionMedium   = "medium"
	PermissionHigh     = "high"
	PermissionCritical = "critical"
)

// Latency classes of a tool, a hint for schedulers and callers.
const (
	LatencyFast   = "fast"
	LatencyNormal = "normal"
	LatencySlow   = "slow"
)

// ToolRegister is the message a provider sends to announce itself and its
// tools. Every runtime produces exactly this message.
type ToolRegister struct {
	Format   int          `json:"format" msgpack:"format"`
	Provider ProviderInfo `json:"provider" msgpack:"provider"`
	Tools    []ToolDef    `json:"tools" msgpack:"tools"`
}

// ProviderInfo identifies a provider. ID is in reverse-domain form
// (org.example.pdf-tools). Capabilities are the grants the provider asks for
// (the seed's @Agent(capabilities=[...])); the host caps them by trust level.
type ProviderInfo struct {
	ID           string   `json:"id" msgpack:"id"`
	Name         string   `json:"name,omitempty" msgpack:"name,omitempty"`
	Version      string   `json:"version,omitempty" msgpack:"version,omitempty"`
	Runtime      string   `json:"runtime,omitempty" msgpack:"runtime,omitempty"`
	Description  string   `json:"description,omitempty" msgpack:"description,omitempty"`
	Capabilities []string `json:"capabilities,omitempty" msgpack:"capabilities,omitempty"`
}

// ToolDef describes one tool. Parameters and Returns are JSON Schema documents
// held as generic values (see Normalize). CapabilityRequired lists capability
// strings (see ParseCapability) that a caller must hold, all of them.
type ToolDef struct {
	Name               string         `json:"name" msgpack:"name"`
	Description        string         `json:"description,omitempty" msgpack:"description,omitempty"`
	Parameters         map[string]any `json:"parameters,omitempty" msgpack:"parameters,omitempty"`
	Returns            map[string]any `json:"returns,omitempty" msgpack:"returns,omitempty"`
	CapabilityRequired []string       `json:"capability_required,omitempty" msgpack:"capability_required,omitempty"`
	Version            string         `json:"version,omitempty" msgpack:"version,omitempty"`
	Deprecated         bool           `json:"deprecated,omitempty" msgpack:"deprecated,omitempty"`
	Deprecation        *Deprecation   `json:"deprecation,omitempty" msgpack:"deprecation,omitempty"`
	Tags               []string       `json:"tags,omitempty" msgpack:"tags,omitempty"`
	Examples           []string       `json:"examples,omitempty" msgpack:"examples,omitempty"`
	Idempotent         bool           `json:"idempotent,omitempty" msgpack:"idempotent,omitempty"`
	LatencyClass       string         `json:"latency_class,omitempty" msgpack:"latency_class,omitempty"`
	PermissionLevel    string         `json:"permission_level,omitempty" msgpack:"permission_level,omitempty"`
	MCPExportable      bool           `json:"mcp_exportable,omitempty" msgpack:"mcp_exportable,omitempty"`
}

// Deprecation tells callers why a tool version is deprecated and what to use.
type Deprecation struct {
	Since       string `json:"since,omitempty" msgpack:"since,omitempty"`
	Message     string `json:"message,omitempty" msgpack:"message,omitempty"`
	Replacement string `json:"replacement,omitempty" msgpack:"replacement,omitempty"`
}

// ToolUnregister withdraws tools of a provider (all of them when Tools is empty).
type ToolUnregister struct {
	ProviderID string   `json:"provider_id" msgpack:"provider_id"`
	Tools      []string `json:"tools,omitempty" msgpack:"tools,omitempty"`
}

// ToolCall asks for one tool invocation. Version is an optional SemVer
// constraint ("1.2.3", "^1.2", "~1.4", ">=1.0 <2.0"); empty means the newest
// non-deprecated version. Deadline is absolute; the zero value means the host
// default. Depth counts nested calls (0 for a call from an agent).
type ToolCall struct {
	ID       string    `json:"id" msgpack:"id"`
	ParentID string    `json:"parent_id,omitempty" msgpack:"parent_id,omitempty"`
	Caller   string    `json:"caller,omitempty" msgpack:"caller,omitempty"`
	Tool     string    `json:"tool" msgpack:"tool"`
	Version  string    `json:"version,omitempty" msgpack:"version,omitempty"`
	Params   any       `json:"params" msgpack:"params"`
	Deadline time.Time `json:"deadline,omitzero" msgpack:"deadline,omitempty"`
	Depth    int       `json:"depth,omitempty" msgpack:"depth,omitempty"`
}

// ToolResult answers a ToolCall: exactly one of Value (which may be nil, a
// JSON null) or Error is meaningful; Error non-nil means failure.
type ToolResult struct {
	CallID string     `json:"call_id,omitempty" msgpack:"call_id,omitempty"`
	Value  any        `json:"value,omitempty" msgpack:"value"`
	Error  *ToolError `json:"error,omitempty" msgpack:"error,omitempty"`
}

package abi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/aios-host/aios-host/internal/fsperm"
)

// Provider is what every runtime implements: one loaded unit (a Go package, a
// .wasm file, a script, a worker process, an MCP server) that offers tools.
//
// Call must be safe for concurrent use. It returns the tool's result as a
// canonical generic value (see Normalize), or an error: a *ToolError passes
// through unchanged; any other error becomes ProviderError. A provider
// reports panics, traps and crashed workers as ProviderCrashed and must
// return by call.Deadline (a runtime that can interrupt its guest does so);
// the host converts a late return into Timeout.
type Provider interface {
	// Describe returns the provider's registration. It is called once after
	// load and again after Reload-style events; it must be cheap.
	Describe() *ToolRegister
	// Call serves one call. env gives access to host services for this call,
	// with the capability checks of this call applied.
	Call(ctx context.Context, call *ToolCall, env Env) (any, error)
	// Close releases the provider's resources. Calls in flight may finish.
	Close() error
}

// Object is a Space storage object as seen by a tool.
type Object struct {
	Space string // the space the object was found in or written to
	ID    string // ObjectId: "sha256:" followed by 64 lower-case hex digits
	Data  []byte
}

// CompleteRequest asks the configured inference backend for a completion.
type CompleteRequest struct {
	Prompt      string   `json:"prompt"`
	System      string   `json:"system,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	Model       string   `json:"model,omitempty"`
	// Stop is where the backend ends its answer (chat-completions'
	// "stop"); none when empty. An MCP server's sampling stopSequences.
	Stop []string `json:"stop,omitempty"`
}

// CompleteResponse is the backend's answer.
type CompleteResponse struct {
	Text  string `json:"text"`
	Model string `json:"model,omitempty"`
	// FinishReason is why the backend stopped, as it says it (OpenAI's
	// "stop", "length": cut at max_tokens), cut at 64 bytes; "" when it
	// said nothing.
	FinishReason string `json:"finish_reason,omitempty"`
}

// Env is the host as seen by a provider while it serves one call. Every
// method checks capabilities against the intersection of the calling agent's
// effective grants and the provider's own grants, and returns *ToolError
// (CapabilityDenied, NotFound, ...) on refusal.
type Env interface {
	// Call is the call being served.
	Call() *ToolCall
	// CallTool calls another tool through the whole pipeline, as a nested
	// call of Call() (parent id, depth+1, attenuated grants). version is an
	// optional SemVer constraint.
	CallTool(ctx context.Context, tool, version string, params any) (any, error)
	// SpaceRead reads object id. With space == "" every space the call may
	// read is searched (in name order); the Object says where it was found.
	SpaceRead(ctx context.Context, space, id string) (Object, error)
	// SpaceWrite stores data in space and returns its ObjectId.
	SpaceWrite(ctx context.Context, space string, data []byte) (Object, error)
	// Complete runs an inference request (needs Inference).
	Complete(ctx context.Context, req CompleteRequest) (CompleteResponse, error)
	// Logger is tagged with the provider and call id.
	Logger() *slog.Logger
}

// VersionReporter is an Env (the host's is one) that a provider handing a
// call on to another version of its code tells which version served it:
// discovery forwards a call that reached a generation a hot reload
// replaced to the new code (a patch or minor release), and the call's
// CallInfo and audit record name the version that ran, not the one the
// pipeline looked up.
type VersionReporter interface {
	ServedVersion(version string)
}

// BoundedSpaceReader is an Env (the host's is one) that reads an object
// only when it holds at most max bytes: a runtime whose answers have a
// bound of their own (runtimes.wasm.max_message_bytes) asks it, so that
// an object over the bound is refused without the host reading it. Over
// the bound, the error is a *ToolError of code TooLarge whose Data holds
// "space" (where the object was found), "size" and "limit" (max).
type BoundedSpaceReader interface {
	SpaceReadAtMost(ctx context.Context, space, id string, max int64) (Object, error)
}

// Checker is an Env that can say whether serving its call may use a host
// service, without using it (the host's Env is one). A bridge that must
// pick one of several calls to answer for (MCP sampling) asks it.
type Checker interface {
	// Check returns nil when the service needing c would be allowed now:
	// the call's effective grants and its provider's both hold c.
	Check(c Capability) error
}

// RefusalNoter is an Env (the host's is one) that records, in its call's
// audit record, a host service that a runtime refused itself for want of
// a capability (a Python worker's brokered connection to a host its
// provider does not hold, or whose name resolved to this machine): the
// host notes those it refuses, and a tool that catches a refusal leaves
// its trace either way.
type RefusalNoter interface {
	// NoteRefused notes te when it is a CapabilityDenied.
	NoteRefused(te *ToolError)
}

// Source is what a Loader loads: a file or folder, plus settings.
type Source struct {
	// Path of the file (or folder, for a provider packaged as a folder).
	Path string
	// ProviderID, when not empty, overrides the id a provider would derive
	// from its file (used by Adapter Cards).
	ProviderID string
	// Logger for load-time and runtime messages, tagged with the provider.
	Logger *slog.Logger
	// Grants is the most the file's trust level (folder or signature)
	// allows, before the config's per-provider settings
	// (providers.<id>.trust and .grants), which need the provider's id. A
	// runtime that enforces grants itself (network access of a worker,
	// WASI clocks) asks FinalGrants once it knows the id; the host checks
	// all host calls anyway.
	Grants Grants
	// Trust is the level of the file's folder or signature (Untrusted, the
	// zero value, for unsigned code), before providers.<id>.trust. A
	// runtime may isolate untrusted code more strictly (the JS runtime's
	// isolation: untrusted).
	Trust TrustLevel
	// GrantsFor, when set (the host sets it), returns the trust level and
	// grants the provider with id providerID, asking for requested, will be
	// added with: the host's own computation, so what a runtime enforces
	// and what the registry shows cannot differ. Call it through
	// FinalGrants.
	GrantsFor func(providerID string, requested Grants) (TrustLevel, Grants)
	// Unit is the folder of the provider's own files when it is packaged
	// as a folder (beside an Adapter Card or tool.aios.yaml, or a folder
	// of its own); empty for a bare file in a plugin folder, whose runtime
	// gives it no file but itself (the plugin folder holds other
	// providers).
	Unit string
	// Pinned, when not nil, is the code a signed provider may run: the
	// absolute paths of its artifact and of the other files its card pins
	// (hex SHA-256 each). A runtime that reads more of the provider's
	// files than Path (imports, modules) refuses any that is not pinned
	// or whose digest differs, and runs only bytes it has checked — the
	// artifact at Path too (CheckPinned).
	Pinned map[string]string
	// MaxBytes, when above 0, is the most a loader reads of the file at
	// Path (the host sets limits.max_plugin_bytes): the host checks the
	// size before the loader runs, but the file may grow, or be swapped
	// for another, in between. ReadFile keeps to it.
	MaxBytes int64
}

// ReadFile reads the file at Path as a loader should: a regular file (a
// FIFO swapped in is refused, not waited on) of at most MaxBytes when that
// is set. The errors name Path.
func (s Source) ReadFile() ([]byte, error) {
	if s.MaxBytes <= 0 {
		return os.ReadFile(s.Path)
	}
	return fsperm.ReadRegularWithin(s.Path, s.MaxBytes, "the most a plugin may have: limits.max_plugin_bytes")
}

// CheckPinned checks data, the bytes a runtime read from s.Path and is
// about to run, against s.Pinned (nothing to check when it is nil: the
// provider is unsigned). The digest discovery computed before the load
// does not vouch for a second read of the file, which may have been
// swapped in between; a runtime that reads the artifact itself calls this
// on the bytes it runs.
func (s Source) CheckPinned(data []byte) error {
	if s.Pinned == nil {
		return nil
	}
	want, ok := s.Pinned[s.Path]
	if !ok {
		if abs, err := filepath.Abs(s.Path); err == nil {
			want, ok = s.Pinned[abs]
		}
	}
	if !ok {
		return fmt.Errorf("%s is not among the files its signed card pins", s.Path)
	}
	if err := CheckPin(s.Path, data, want); err != nil {
		return fmt.Errorf("%w (the file changed after it was checked)", err)
	}
	return nil
}

// CheckPin compares data, read from path, with want, the hex SHA-256 its
// signed card pins for it.
func CheckPin(path string, data []byte, want string) error {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return fmt.Errorf("%s has sha256 %s, the signed card pins %s", path, got, want)
	}
	return nil
}

// FinalGrants returns the trust level and grants the provider with id
// providerID (after any ProviderID override), asking for requested, will
// hold: GrantsFor's answer, or without it Trust and requested ∩ Grants.
func (s Source) FinalGrants(providerID string, requested Grants) (TrustLevel, Grants) {
	if s.GrantsFor != nil {
		return s.GrantsFor(providerID, requested)
	}
	return s.Trust, Intersect(requested, s.Grants)
}

// RealClockRandom reports whether the provider with id providerID, asking
// for asks, gets a WebAssembly guest's real clocks (CapClock) and random
// source (CapRandom): it asks for each and the grants it will hold
// (FinalGrants) allow it. Both WASM runtimes (core modules, components)
// use it.
func (s Source) RealClockRandom(providerID string, asks Grants) (clock, random bool) {
	_, held := s.FinalGrants(providerID, asks)
	has := func(kind string) bool {
		return asks.Allows(Capability{Kind: kind}) && held.Allows(Capability{Kind: kind})
	}
	return has(CapClock), has(CapRandom)
}

// Loader turns a file into a Provider. The host keeps a table of loaders by
// file extension; runtimes implement Loader and never import the host.
type Loader interface {
	// Runtime is the runtime name (RuntimeWASM, RuntimeJS, ...).
	Runtime() string
	// Extensions lists the file extensions this loader takes, with the dot.
	Extensions() []string
	// Load loads src. Errors name the file and what is wrong with it.
	Load(ctx context.Context, src Source) (Provider, error)
}

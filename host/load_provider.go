package host

// This file was added by engineer D (discovery) for hot reload: discovery
// must load a new version of a provider before swapping it in with
// ReplaceProvider, so it needs the loader table without the registration
// LoadFile does.

import (
	"context"
	"errors"
	"fmt"
	"github.com/aios-host/aios-host/internal/fsperm"
	"os"
	"runtime/debug"
	"strings"

	"github.com/aios-host/aios-host/abi"
)

// LoadProvider loads the file at path with the loader its extension selects
// but does not register it; the caller owns the provider (register it with
// AddProvider or ReplaceProvider, or Close it). Errors name the file.
func (h *Host) LoadProvider(ctx context.Context, path string, meta ProviderMeta) (abi.Provider, error) {
	l, ok := h.LoaderFor(path)
	if !ok {
		return nil, fmt.Errorf("load %s: no loader for this file type (known extensions: %s)", path, strings.Join(h.Extensions(), " "))
	}
	if err := checkPluginFile(path, h.pol.maxPluginBytes); err != nil {
		return nil, err
	}
	src := abi.Source{
		Path:   path,
		Logger: h.log.With("runtime", l.Runtime(), "file", path),
		Grants: h.pol.trustCap(meta.Trust),
		Trust:  meta.Trust,
		Unit:   meta.Unit,
		Pinned: meta.Pinned,
		// checkPluginFile saw the size; a loader that reads the file
		// keeps to the bound when it grew since.
		MaxBytes: h.pol.maxPluginBytes,
		// What record will compute once the id is known (the config's
		// providers.<id>.trust and .grants included): runtimes configure
		// their sandboxes with it (python network, WASI clocks).
		GrantsFor: func(id string, requested abi.Grants) (abi.TrustLevel, abi.Grants) {
			if meta.ProviderID != "" {
				id = meta.ProviderID
			}
			if meta.Capabilities != nil {
				// A bad capability refuses the provider at registration.
				requested, _ = abi.ParseGrants(meta.Capabilities)
			}
			// The source the registration will name (meta.Unit: a
			// provider folder's files register under the folder).
			source := meta.Unit
			if source == "" {
				source = meta.Source
			}
			if source == "" {
				source = path
			}
			return h.pol.providerGrants(id, source, meta.Trust, requested)
		},
	}
	p, err := loadRecovering(ctx, l, src)
	if err == nil && p == nil {
		err = errors.New("the loader returned neither a provider nor an error (a bug in the loader)")
	}
	if err != nil {
		return nil, &loadError{path: path, runtime: l.Runtime(), err: err}
	}
	return p, nil
}

// loadError is a loader's failure to load path, named with its runtime.
// A loader that names the file itself ("load PATH: …", as the js and wasm
// runtimes do) is not named again: a syntax error read "load X (js
// runtime): load X: X:1:45: …" (TestLoadErrorNamesTheFileOnce).
type loadError struct {
	path, runtime string
	err           error
}

func (e *loadError) Error() string {
	return fmt.Sprintf("load %s (%s runtime): %s", e.path, e.runtime, strings.TrimPrefix(e.err.Error(), "load "+e.path+": "))
}

func (e *loadError) Unwrap() error { return e.err }

// loadRecovering runs l.Load, turning a panic of the loader (a bug, which
// a malformed file must not turn into the end of the host) into an error;
// the stack goes to the file's log.
func loadRecovering(ctx context.Context, l abi.Loader, src abi.Source) (p abi.Provider, err error) {
	defer func() {
		if r := recover(); r != nil {
			src.Logger.Error("loader panicked", "panic", r, "stack", string(debug.Stack()))
			p, err = nil, fmt.Errorf("the loader failed on this file (a bug in aios-host; the stack is in the log): %v", r)
		}
	}()
	return l.Load(ctx, src)
}

// MaxPluginBytes is the largest plugin file the host reads
// (limits.max_plugin_bytes): loaders refuse a larger one, and so does
// discovery before it hashes one for its Adapter Card.
func (h *Host) MaxPluginBytes() int64 { return h.pol.maxPluginBytes }

// NoteDisabled records that provider id, which providers.<id>.disabled
// disables, was found and skipped before it reached the host (an Adapter
// Card's id, a built-in provider): see DisabledSeen.
func (h *Host) NoteDisabled(id string) { h.pol.disabledSeen.Store(id, true) }

// DisabledSeen reports whether a provider with id was found and not loaded
// because providers.<id>.disabled disables it (refused by the host, or
// noted with NoteDisabled). A disabled override never seen names no
// provider the host found: a misspelt id disables nothing.
func (h *Host) DisabledSeen(id string) bool {
	_, ok := h.pol.disabledSeen.Load(id)
	return ok
}

// checkPluginFile refuses, before any loader reads it, a plugin path that
// is not a regular file or a folder (a FIFO would block the reader for
// good, a device would never end: /dev/zero), a file over max bytes, or
// an empty file. A
// symlink is judged by its target. A path that cannot be stat'ed is left
// to the loader, whose error names it.
func checkPluginFile(path string, max int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return nil
	case !m.IsRegular():
		return fmt.Errorf("load %s: not a regular file (%s); a plugin must be a file or a folder", path, fsperm.Kind(m))
	case fi.Size() > max:
		return fmt.Errorf("load %s: the file is %d bytes, above the %d a plugin may have (limits.max_plugin_bytes)", path, fi.Size(), max)
	case fi.Size() == 0:
		// (A file being rewritten is empty for a moment: its next
		// version is loaded when written.) The runtimes said "registers
		// no tools", "not a WebAssembly binary".
		return fmt.Errorf("load %s: the file is empty (0 bytes)", path)
	}
	return nil
}

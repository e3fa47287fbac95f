package host

// This file was added by engineer D (discovery) for hot reload: discovery
// must load a new version of a provider before swapping it in with
// ReplaceProvider, so it needs the loader table without the registration
// LoadFile does.

import (
	"context"
	"fmt"
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
	src := abi.Source{
		Path:   path,
		Logger: h.log.With("runtime", l.Runtime(), "file", path),
		Grants: h.pol.trustCap(meta.Trust),
		Trust:  meta.Trust,
	}
	p, err := loadRecovering(ctx, l, src)
	if err != nil {
		return nil, fmt.Errorf("load %s (%s runtime): %w", path, l.Runtime(), err)
	}
	return p, nil
}

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

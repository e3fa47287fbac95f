package host

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aios-host/aios-host/abi"
)

// AddLoader adds l to the loader table under each of its extensions. Two
// loaders claiming the same extension are refused, naming both runtimes,
// and so is a nil loader.
func (h *Host) AddLoader(l abi.Loader) error {
	if l == nil {
		return errors.New("loader is nil")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ext := range l.Extensions() {
		ext = strings.ToLower(ext)
		if !strings.HasPrefix(ext, ".") {
			return fmt.Errorf("loader %s: extension %q must start with a dot", l.Runtime(), ext)
		}
		if old, ok := h.loaders[ext]; ok && old != l {
			return fmt.Errorf("loader %s: extension %s is already taken by loader %s", l.Runtime(), ext, old.Runtime())
		}
	}
	for _, ext := range l.Extensions() {
		h.loaders[strings.ToLower(ext)] = l
	}
	return nil
}

// Extensions lists the extensions of the loader table, sorted.
func (h *Host) Extensions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.loaders))
	for ext := range h.loaders {
		out = append(out, ext)
	}
	sort.Strings(out)
	return out
}

// IsTypeDeclaration reports whether path names a TypeScript declaration
// file (types.d.ts beside index.ts, aios-sdk.d.ts for an editor): types,
// no code, so no loader takes it.
func IsTypeDeclaration(path string) bool {
	name := strings.ToLower(filepath.Base(path))
	for _, decl := range []string{".d.ts", ".d.mts", ".d.cts"} {
		if len(name) > len(decl) && strings.HasSuffix(name, decl) {
			return true
		}
	}
	return false
}

// LoaderFor returns the loader for path: the one whose extension is the
// longest suffix of the file name (so ".tool.js" can beat ".js"); a
// TypeScript declaration file has none (IsTypeDeclaration).
func (h *Host) LoaderFor(path string) (abi.Loader, bool) {
	name := strings.ToLower(filepath.Base(path))
	if IsTypeDeclaration(name) {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var best abi.Loader
	bestLen := 0
	for ext, l := range h.loaders {
		if len(ext) > bestLen && strings.HasSuffix(name, ext) {
			best, bestLen = l, len(ext)
		}
	}
	return best, best != nil
}

// LoadFile loads the file at path with the loader its extension selects
// (see LoadProvider) and adds the provider to the host. Errors name the
// file. The returned provider is owned by the host.
func (h *Host) LoadFile(ctx context.Context, path string, meta ProviderMeta) (abi.Provider, error) {
	if meta.Source == "" {
		meta.Source = path
	}
	p, err := h.LoadProvider(ctx, path, meta)
	if err != nil {
		return nil, err
	}
	if err := h.AddProvider(ctx, p, meta); err != nil {
		_ = p.Close()
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return p, nil
}

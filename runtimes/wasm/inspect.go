package wasm

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aios-host/aios-host/abi"
)

// Inspect loads the core module at path in a throwaway sandbox (in-memory
// compile cache, nothing granted, output discarded) and returns its
// ToolRegister. A component binary yields an error wrapping ErrComponent,
// so a caller can hand it to the component runtime.
func Inspect(ctx context.Context, path string) (*abi.ToolRegister, error) {
	bin, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("inspect %s: %w", path, err)
	}
	return InspectBytes(ctx, path, bin, Config{}, nil)
}

// InspectBytes is Inspect of the module bytes bin, read from path (which
// names it in messages): a caller that has read the file already does not
// read it again (a pipe, `<(…)`, gives its bytes once). cfg is the
// runtimes.wasm section the host would load the module with (its memory
// limits, load and compile timeouts, per-provider entries): inspect used
// the defaults whatever the config said, so a module refused with the
// advice to raise memory_limit_pages was still refused once it was
// raised. Its engine is not used (inspect runs wazero), nor its pool (one
// instance). What the guest says while it loads (aios.log, stdout and
// stderr, as cfg.stdout says) goes to log, as when the host loads it: an
// author sees why a guest failed in its own words (inspect discarded it);
// a nil log discards it.
func InspectBytes(ctx context.Context, path string, bin []byte, cfg Config, log *slog.Logger) (*abi.ToolRegister, error) {
	if err := checkHeader(path, bin); err != nil {
		return nil, err
	}
	if log == nil {
		log, cfg.Stdout = slog.New(slog.DiscardHandler), "discard"
	}
	cfg.PoolSize, cfg.CacheDir = 1, ""
	l, err := NewLoader(Options{Config: cfg, Logger: log})
	if err != nil {
		return nil, err
	}
	defer l.Close()
	p, err := l.LoadBytes(ctx, abi.Source{Path: path, Logger: log}, bin)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Describe(), nil
}

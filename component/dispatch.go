package component

import (
	"context"
	"fmt"
	"io"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/fsperm"
)

// Dispatch returns a loader for .wasm files that reads the header and hands
// components to comp and core modules to core (the wasm runtime's loader).
// A nil core refuses core modules, a nil comp components.
//
// The returned loader has no Close and does not own core and comp: close
// them (runtimes/wasm's Loader.Close stops its watchdog goroutine) after the
// host, keeping them, or through its Unwrap() []abi.Loader method, which
// returns core and comp in that order.
func Dispatch(core, comp abi.Loader) abi.Loader { return &dispatch{core: core, comp: comp} }

type dispatch struct{ core, comp abi.Loader }

func (d *dispatch) Runtime() string {
	if d.core != nil {
		return d.core.Runtime()
	}
	if d.comp != nil {
		return d.comp.Runtime()
	}
	return abi.RuntimeComponent
}

func (d *dispatch) Extensions() []string { return []string{".wasm"} }

// Unwrap returns the core-module and component loaders, in that order
// (either may be nil), so that their owner can close them: Dispatch does
// not own them.
func (d *dispatch) Unwrap() []abi.Loader { return []abi.Loader{d.core, d.comp} }

func (d *dispatch) Load(ctx context.Context, src abi.Source) (abi.Provider, error) {
	f, err := fsperm.OpenRegular(src.Path) // a FIFO swapped in is refused, not waited on
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	head := make([]byte, 8)
	n, err := io.ReadFull(f, head)
	f.Close()
	if err != nil && n < 8 {
		return nil, fmt.Errorf("load %s: not a WebAssembly binary (%d bytes)", src.Path, n)
	}
	if IsComponent(head) {
		if d.comp == nil {
			return nil, fmt.Errorf("load %s: a WebAssembly component, but the component runtime is not in the loader table", src.Path)
		}
		return d.comp.Load(ctx, src)
	}
	if d.core == nil {
		return nil, fmt.Errorf("load %s: a core WebAssembly module, but the wasm runtime is not in the loader table", src.Path)
	}
	return d.core.Load(ctx, src)
}

package wasm

import (
	"context"
	"os"
	"testing"

	"github.com/aios-host/aios-host/guest/go/wire"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

func BenchmarkTmpRaw(b *testing.B) {
	for _, path := range []string{"/tmp/i2exp/x.wasm", "/tmp/i2exp/nodefer.wasm", "/tmp/i2exp/nomap.wasm", "/tmp/i2exp/noreset.wasm"} {
		bin, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		b.Run(path[10:], func(b *testing.B) {
			ctx := context.Background()
			r := wazero.NewRuntime(ctx)
			defer r.Close(ctx)
			wasi_snapshot_preview1.MustInstantiate(ctx, r)
			stub := func(context.Context, uint32, uint32) uint64 { return 0 }
			r.NewHostModuleBuilder("aios").
				NewFunctionBuilder().WithFunc(stub).Export("call_tool").
				NewFunctionBuilder().WithFunc(stub).Export("space_read").
				NewFunctionBuilder().WithFunc(stub).Export("space_write").
				NewFunctionBuilder().WithFunc(stub).Export("ai_complete").
				NewFunctionBuilder().WithFunc(func(context.Context, uint32, uint32, uint32) {}).Export("log").
				Instantiate(ctx)
			mod, err := r.InstantiateWithConfig(ctx, bin, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
			if err != nil {
				b.Fatal(err)
			}
			msg := wire.AppendMapHeader(nil, 4)
			msg = wire.AppendString(wire.AppendString(msg, "id"), "c1")
			msg = wire.AppendString(wire.AppendString(msg, "tool"), "echo")
			msg = wire.AppendString(wire.AppendString(msg, "caller"), "bench")
			msg, _ = wire.AppendValue(wire.AppendString(msg, "params"), map[string]any{"value": "hello"})
			res, _ := mod.ExportedFunction("aios_alloc").Call(ctx, uint64(len(msg)))
			ptr := uint32(res[0])
			mod.Memory().Write(ptr, msg)
			fn := mod.ExportedFunction("aios_call")
			stack := make([]uint64, 2)
			withCPU(b, func() {
				for b.Loop() {
					stack[0], stack[1] = uint64(ptr), uint64(len(msg))
					if err := fn.CallWithStack(ctx, stack); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

package component

import (
	"context"
	"fmt"

	"github.com/aios-host/aios-host/abi"
)

// ReadObject is spaces.read of object id for a component whose linear
// memories grow to at most memBytes each (memory_limit_pages): the
// object's list<u8> is lowered into one of them, so one larger can never
// be handed over, and is refused before the host reads it, TooLarge
// naming the object, its size and the limit, through
// abi.BoundedSpaceReader when env is one. It was read and hashed whole,
// then failed the call as ProviderCrashed "realloc returned [0, N), out
// of bounds of memory", naming neither (TestSpacesReadOverMemoryLimitRefused).
// Both engines use it.
func ReadObject(ctx context.Context, env abi.Env, id string, memBytes int64) (abi.Object, error) {
	br, ok := env.(abi.BoundedSpaceReader)
	if !ok || memBytes <= 0 {
		return env.SpaceRead(ctx, "", id)
	}
	obj, err := br.SpaceReadAtMost(ctx, "", id, memBytes)
	if te, ok := err.(*abi.ToolError); ok && te.Code == abi.TooLarge {
		if d, _ := te.Data.(map[string]any); d != nil && d["limit"] != nil {
			return abi.Object{}, &abi.ToolError{Code: abi.TooLarge,
				Message: fmt.Sprintf("spaces.read of object %s in space %v (%v bytes): more than the component's memory may hold, %d bytes (memory_limit_pages %d, runtimes.wasm or its providers entry)", id, d["space"], d["size"], memBytes, memBytes/65536),
				Data:    d}
		}
	}
	return obj, err
}

package host

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/wire"
)

// decodeBudget bounds the host memory that the large messages being
// handled at once (JSON-RPC requests, MCP arguments) may decode to:
// limits.max_decode_bytes. Each message was bounded alone (16 or 32 ×
// its size limit), their sum was not: 16 concurrent 4 MiB messages of
// nested arrays on one socket took 1.09 GB of heap.
type decodeBudget struct {
	sem   *semaphore.Weighted
	total int64
	used  atomic.Int64
}

// DecodeShareFloor is the size of a message below which it takes nothing
// of limits.max_decode_bytes: what such a message decodes to is small,
// and ordinary calls never wait behind large ones. Only a message of this
// size or more may wait in ReserveJSON.
const DecodeShareFloor = 64 << 10

// decodeWait is how long a large message waits for its share of
// limits.max_decode_bytes before it is refused.
var decodeWait = 10 * time.Second

func newDecodeBudget(total int64) *decodeBudget {
	if total <= 0 {
		total = config.DefaultMaxDecodeBytes
	}
	return &decodeBudget{sem: semaphore.NewWeighted(total), total: total}
}

// ReserveJSON bounds what the JSON message raw decodes to before it is
// decoded: over says its estimate (internal/wire.JSONCost) passes budget,
// the bound of one message, and nothing is taken. Else a message of 64
// KiB or more also takes its estimate from limits.max_decode_bytes, which
// the large messages being handled share (reserveDecode: it may wait, and
// fail Unavailable), until release is called when its answer is made. The
// JSON-RPC server and the MCP server call it for every message.
func (h *Host) ReserveJSON(ctx context.Context, raw []byte, budget int64) (release func(), over bool, err error) {
	if len(raw) < DecodeShareFloor {
		return func() {}, wire.CheckJSONCost(raw, budget, 0) != nil, nil
	}
	cost, over := wire.JSONCost(raw, budget)
	if over {
		return nil, true, nil
	}
	release, err = h.reserveDecode(ctx, int64(len(raw)), cost)
	return release, false, err
}

// reserveDecode takes cost bytes (what a message of size bytes is
// estimated to decode to, internal/wire.JSONCost) of limits.max_decode_bytes
// for as long as the message is handled: call release when its answer is
// made. It waits while other messages hold the budget, up to 10 s or ctx's
// end, then answers Unavailable (send it again later). A cost past the
// whole budget takes the whole budget (the message's own limit bounds it).
func (h *Host) reserveDecode(ctx context.Context, size, cost int64) (release func(), err error) {
	b := h.decode
	if b == nil || cost <= 0 {
		return func() {}, nil
	}
	cost = min(cost, b.total)
	wctx, cancel := context.WithTimeout(ctx, decodeWait)
	defer cancel()
	if err := b.sem.Acquire(wctx, cost); err != nil {
		if ctx.Err() != nil {
			return nil, &abi.ToolError{Code: abi.Cancelled,
				Message: fmt.Sprintf("a message of %d bytes was cancelled while it waited for host memory (limits.max_decode_bytes): %v", size, context.Cause(ctx))}
		}
		return nil, &abi.ToolError{Code: abi.Unavailable,
			Message: fmt.Sprintf("a message of %d bytes, estimated to decode to %s, waited %s for host memory: the large messages being handled hold %s of limits.max_decode_bytes (%s); send it again later",
				size, wire.SizeText(cost), decodeWait, wire.SizeText(b.used.Load()), wire.SizeText(b.total)),
			Data: map[string]any{"limit": b.total}}
	}
	b.used.Add(cost)
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			b.used.Add(-cost)
			b.sem.Release(cost)
		}
	}, nil
}

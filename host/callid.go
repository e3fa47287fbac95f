package host

import (
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"
)

// callIDs issues call ids: a per-host prefix (the start time in base 36, so
// ids stay unique across restarts that share an audit log) and a counter.
// No fmt, no randomness on the hot path; frameID formats into the call's
// frame, so an id costs no allocation of its own.
type callIDs struct {
	prefix []byte
	n      atomic.Uint64
}

func newCallIDs() *callIDs {
	p := strconv.AppendInt(nil, time.Now().UnixMilli(), 36)
	return &callIDs{prefix: append(p, '-')}
}

func (c *callIDs) appendNext(b []byte) []byte {
	b = append(b, c.prefix...)
	return strconv.AppendUint(b, c.n.Add(1), 36)
}

// frameID issues an id whose bytes live in f.idBuf. The string shares
// those bytes (unsafe.String); that is sound because a frame is never
// reused and idBuf is never written again, and the string keeps the frame
// alive for the collector as long as the id is referenced.
func (c *callIDs) frameID(f *frame) string {
	b := c.appendNext(f.idBuf[:0])
	if len(b) > len(f.idBuf) || &b[0] != &f.idBuf[0] {
		return string(b) // did not fit (never, in practice)
	}
	return unsafe.String(&f.idBuf[0], len(b))
}

//go:build wasmtime

package wasm

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	mrand "math/rand"
	"sync/atomic"
	"time"

	wt "github.com/bytecodealliance/wasmtime-go/v39"
)

// The wasmtime engine's clocks, randomness and sleep, as on wazero: the
// WASI preview 1 functions clock_time_get, clock_res_get, random_get and
// poll_oneoff are defined by the host over wasmtime's own, so that a guest
// without the Clock grant (and runtimes.wasm.clock: real) gets wazero's
// fake wall clock (it starts at 2022-01-01 and advances 1 ms a reading) and
// the virtual monotonic clock of the wazero engine (virtualClock: 1 ns a
// reading, and a sleep returns at once having moved it past its end), and
// one without Random gets a deterministic source. A granted sleep ends at the call's deadline:
// wasmtime's own poll_oneoff sleeps in native code that epoch interruption
// cannot stop, so a sleeping guest held its instance past any deadline.

// WASI errno values used here.
const (
	wasiESUCCESS = 0
	wasiEBADF    = 8
	wasiEFAULT   = 21
	wasiEINVAL   = 28
	wasiENOTSUP  = 58
)

const wasiModule = "wasi_snapshot_preview1"

// fakeEpochNanos is wazero's fake wall clock start (2022-01-01T00:00:00Z).
const fakeEpochNanos = 1640995200000000000

// wtSys is one provider's clocks and random source. The fake wall clock
// is each instance's (wtInstance.wallReads), as wazero makes one per
// instance; the virtual monotonic clock is the provider's, as on wazero
// (Provider.moduleConfig).
type wtSys struct {
	realClock, realRandom atomic.Bool
	mono                  virtualClock
	start                 time.Time // the real monotonic clock's zero
}

func newWtSys() *wtSys { return &wtSys{start: time.Now()} }

// now reads clock id (0 realtime, 1 monotonic) for the instance inst
// finds (looked up only for the fake wall clock: Caller.Data takes
// wasmtime-go's process-wide store lock); ok is false for other ids.
func (s *wtSys) now(id int32, inst func() *wtInstance) (int64, bool) {
	isReal := s.realClock.Load()
	switch id {
	case 0:
		if isReal {
			return time.Now().UnixNano(), true
		}
		// wazero's fake wall clock: 2022-01-01 at an instance's first
		// reading, 1 ms more at each. The provider's instances shared
		// one here, so a fresh instance read on from where another had
		// left it (TestFakeWallClockPerInstanceOnBothEngines).
		i := inst()
		if i == nil {
			return fakeEpochNanos, true
		}
		i.wallReads++
		return fakeEpochNanos + (i.wallReads-1)*int64(time.Millisecond), true
	case 1:
		if isReal {
			return int64(time.Since(s.start)), true
		}
		return s.mono.now(), true
	}
	return 0, false
}

// random fills b for inst's guest (inst called only without the grant:
// Caller.Data takes wasmtime-go's process-wide store lock): from
// crypto/rand when granted, else from the instance's fake source, wazero's
// default (math/rand seeded 42, per instance: a fresh instance reads the
// same bytes, and the same as on wazero; TestFakeRandomSameOnBothEngines).
func (s *wtSys) random(inst func() *wtInstance, b []byte) {
	if s.realRandom.Load() {
		_, _ = rand.Read(b)
		return
	}
	i := inst()
	if i == nil {
		clear(b)
		return
	}
	if i.fakeRand == nil {
		i.fakeRand = mrand.New(mrand.NewSource(42)) // wazero's platform.NewFakeRandSource
	}
	_, _ = i.fakeRand.Read(b)
}

// inMem reports whether [ptr, ptr+n) is inside mem.
func inMem(mem []byte, ptr, n uint64) bool { return ptr+n <= uint64(len(mem)) }

// defineWASISys defines the four functions over wasmtime's WASI.
func (p *wtProvider) defineWASISys(lk *wt.Linker) error {
	lk.AllowShadowing(true)
	defer lk.AllowShadowing(false)
	i32, i64 := wt.NewValType(wt.KindI32), wt.NewValType(wt.KindI64)
	ty := func(params ...*wt.ValType) *wt.FuncType { return wt.NewFuncType(params, []*wt.ValType{i32}) }
	// The results, made once: wasmtime-go only reads a host function's
	// results, and a slice made per call was a third of a clock reading's
	// allocations.
	errnos := map[int32][]wt.Val{}
	for _, e := range []int32{wasiESUCCESS, wasiEFAULT, wasiEINVAL, wasiENOTSUP} {
		errnos[e] = []wt.Val{wt.ValI32(e)}
	}
	errno := func(e int32) ([]wt.Val, *wt.Trap) {
		if r, ok := errnos[e]; ok {
			return r, nil
		}
		return []wt.Val{wt.ValI32(e)}, nil
	}
	s := p.sys
	if err := lk.FuncNew(wasiModule, "clock_time_get", ty(i32, i64, i32), func(c *wt.Caller, a []wt.Val) ([]wt.Val, *wt.Trap) {
		t, ok := s.now(a[0].I32(), func() *wtInstance { inst, _ := c.Data().(*wtInstance); return inst })
		if !ok {
			return errno(wasiEINVAL) // as wazero: realtime and monotonic only
		}
		mem, ptr := callerMem(c, nil), uint64(uint32(a[2].I32()))
		if !inMem(mem, ptr, 8) {
			return errno(wasiEFAULT)
		}
		binary.LittleEndian.PutUint64(mem[ptr:], uint64(t))
		return errno(wasiESUCCESS)
	}); err != nil {
		return err
	}
	if err := lk.FuncNew(wasiModule, "clock_res_get", ty(i32, i32), func(c *wt.Caller, a []wt.Val) ([]wt.Val, *wt.Trap) {
		id := a[0].I32()
		if id != 0 && id != 1 {
			return errno(wasiEINVAL)
		}
		mem, ptr := callerMem(c, nil), uint64(uint32(a[1].I32()))
		if !inMem(mem, ptr, 8) {
			return errno(wasiEFAULT)
		}
		// wazero's: 1 µs for the wall clock (fake or real), 1 ns for the
		// monotonic one (virtual or real); the monotonic clock said 1 µs
		// here (TestClockResolutionSameOnBothEngines).
		res := time.Microsecond
		if id == 1 {
			res = time.Nanosecond
		}
		binary.LittleEndian.PutUint64(mem[ptr:], uint64(res))
		return errno(wasiESUCCESS)
	}); err != nil {
		return err
	}
	if err := lk.FuncNew(wasiModule, "random_get", ty(i32, i32), func(c *wt.Caller, a []wt.Val) ([]wt.Val, *wt.Trap) {
		mem, ptr, n := callerMem(c, nil), uint64(uint32(a[0].I32())), uint64(uint32(a[1].I32()))
		if !inMem(mem, ptr, n) {
			return errno(wasiEFAULT)
		}
		s.random(func() *wtInstance { inst, _ := c.Data().(*wtInstance); return inst }, mem[ptr:ptr+n])
		return errno(wasiESUCCESS)
	}); err != nil {
		return err
	}
	return lk.FuncNew(wasiModule, "poll_oneoff", ty(i32, i32, i32, i32), func(c *wt.Caller, a []wt.Val) ([]wt.Val, *wt.Trap) {
		inst, _ := c.Data().(*wtInstance)
		return errno(p.pollOneoff(inst, callerMem(c, inst), uint64(uint32(a[0].I32())), uint64(uint32(a[1].I32())),
			uint64(uint32(a[2].I32())), uint64(uint32(a[3].I32()))))
	})
}

// pollOneoff serves clock subscriptions of a relative time (a sleep: none
// with a fake clock, else until the earliest timeout or the call's
// deadline, whichever comes first; an absolute one is ENOTSUP, as on
// wazero) and answers fd subscriptions at once, as wazero does for the
// files a guest has (stdin, stdout, stderr; no preopens): an fd_read of
// them is ready (stdin is empty: a read returns at once, at its end), its
// event after the others; an fd_write is ENOTSUP; another fd is EBADF, a
// negative one for the whole call. Every fd event said ENOTSUP here, so
// poll() of stdin was POLLERR on wasmtime and POLLIN on wazero
// (TestPollFdEventsSameOnBothEngines). As on wazero, the events are cleared
// and nevents set to nsubs before the subscriptions are read.
func (p *wtProvider) pollOneoff(inst *wtInstance, mem []byte, in, out, nsubs, neventsPtr uint64) int32 {
	const subSize, evSize = 48, 32
	if nsubs == 0 {
		return wasiEINVAL
	}
	if !inMem(mem, in, nsubs*subSize) || !inMem(mem, out, nsubs*evSize) || !inMem(mem, neventsPtr, 4) {
		return wasiEFAULT
	}
	clear(mem[out : out+nsubs*evSize])
	binary.LittleEndian.PutUint32(mem[neventsPtr:], uint32(nsubs))
	s := p.sys
	nev := uint64(0)
	event := func(sub []byte, errno uint16) {
		ev := mem[out+nev*evSize : out+(nev+1)*evSize]
		copy(ev[0:8], sub[0:8]) // userdata
		binary.LittleEndian.PutUint16(ev[8:], errno)
		ev[10] = sub[8] // type
		nev++
	}
	var stdioReads []uint64 // fd_read subscriptions of stdin, stdout, stderr: their events come last
	sleep, fdReady := time.Duration(-1), false
	for i := uint64(0); i < nsubs; i++ {
		sub := mem[in+i*subSize : in+(i+1)*subSize]
		tag := sub[8]
		if tag > 2 {
			return wasiEINVAL // as wazero: clock, fd_read and fd_write only
		}
		if tag != 0 {
			fd := int32(binary.LittleEndian.Uint32(sub[16:]))
			switch {
			case fd < 0:
				return wasiEBADF
			case fd > 2:
				event(sub, wasiEBADF)
			case tag == 2:
				event(sub, wasiENOTSUP)
			default:
				stdioReads = append(stdioReads, i)
			}
			fdReady = true
			continue
		}
		if binary.LittleEndian.Uint16(sub[40:])&^1 != 0 {
			return wasiEINVAL // flags other than abstime
		}
		if binary.LittleEndian.Uint16(sub[40:])&1 != 0 {
			// As wazero: an absolute time (abstime) is not supported, for
			// the whole call. It was served here, so a guest that slept
			// so on wasmtime failed on wazero, the default engine
			// (TestPollAbsoluteTimeSameOnBothEngines).
			return wasiENOTSUP
		}
		event(sub, wasiESUCCESS)
		timeout := int64(binary.LittleEndian.Uint64(sub[24:]))
		if d := time.Duration(max(timeout, 0)); sleep < 0 || d < sleep {
			sleep = d
		}
	}
	for _, i := range stdioReads {
		event(mem[in+i*subSize:in+(i+1)*subSize], wasiESUCCESS)
	}
	if fdReady || sleep <= 0 {
		return wasiESUCCESS
	}
	if !s.realClock.Load() {
		s.mono.sleep(int64(sleep)) // virtual: no time passes
		return wasiESUCCESS
	}
	ctx, dl := context.Background(), time.Time{}
	if inst != nil {
		if inst.shim.callCtx != nil {
			ctx = inst.shim.callCtx
		}
		dl = inst.dl
	}
	if !dl.IsZero() {
		sleep = min(sleep, time.Until(dl))
	}
	if sleep > 0 {
		t := time.NewTimer(sleep)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	return wasiESUCCESS
}

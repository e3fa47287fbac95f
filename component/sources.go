package component

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"time"
)

// Sources are one component instance's WASI clocks and random source, on
// either engine (this package's, and component/wasmtime's, which defines
// wasi:clocks and wasi:random over wasmtime's own so that they follow the
// grants as here). With real set they are the host's; otherwise fake:
//
//   - the wall clock advances 1 ms per reading from fakeEpoch;
//   - the monotonic clock is virtual: it advances 1 ns per reading from 0,
//     and a wait on a clock pollable moves it to the pollable's end (a
//     sleep takes no time); it advanced 1 ms per reading, as wazero's fake
//     clock does, and then a Go guest's garbage collector stalled: its GC
//     CPU limiter, timing the collector's assists with this clock (two
//     readings each), found them most of the guest's time and turned them
//     off, and the heap grew by all each call allocated
//     (TestGoComponentHeapCollected; runtimes/wasm virtualClock);
//   - the random bytes are a ChaCha8 stream with a fixed seed: every fresh
//     instance reads the same bytes, as core modules' fake source does.
//
// The zero value is a fresh instance's. A Sources is not safe for
// concurrent use (an instance serves one call at a time).
type Sources struct {
	mono, wall uint64
	rnd        *mrand.ChaCha8
}

// fakeEpoch is where a fake wall clock starts (2022-01-01T00:00:00Z, as
// wazero's fake clock for core modules).
const fakeEpoch = uint64(1640995200) * 1e9

// processStart anchors the monotonic clock offered to guests; it is set once
// at program start and never written again.
var processStart = time.Now()

// MonotonicNow is the monotonic clock in nanoseconds: the host's (since
// the process started), or the virtual one.
func (s *Sources) MonotonicNow(real bool) uint64 {
	if real {
		return uint64(time.Since(processStart).Nanoseconds())
	}
	s.mono++
	return s.mono
}

// Virtual is the virtual monotonic clock's reading, without advancing it.
func (s *Sources) Virtual() uint64 { return s.mono }

// WaitedUntil moves the virtual monotonic clock to until, the end of a
// clock pollable waited on, if it is later.
func (s *Sources) WaitedUntil(until uint64) {
	if until > s.mono {
		s.mono = until
	}
}

// WallNow is the wall clock in nanoseconds since the Unix epoch: the
// host's, or the fake one.
func (s *Sources) WallNow(real bool) uint64 {
	if real {
		return uint64(time.Now().UnixNano())
	}
	s.wall += uint64(time.Millisecond)
	return fakeEpoch + s.wall
}

// Random fills b from crypto/rand (real), or from the instance's
// deterministic stream.
func (s *Sources) Random(b []byte, real bool) {
	if real {
		_, _ = rand.Read(b)
		return
	}
	if s.rnd == nil {
		s.rnd = mrand.NewChaCha8([32]byte{})
	}
	_, _ = s.rnd.Read(b)
}

// MaxRandomBytes bounds one get-random-bytes (and insecure) call.
const MaxRandomBytes = 1 << 20

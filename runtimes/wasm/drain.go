package wasm

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Drain is the close-after-drain of a loader whose Close must wait for
// the loads and calls in progress before it releases what they use (the
// wasmtime loaders: their epoch ticker keeps the deadlines of the calls
// still running). The zero value is ready; it must not be copied.
type Drain struct {
	calls   atomic.Int64
	closing atomic.Bool
	once    sync.Once
	err     error
}

// Enter counts a load or call in progress; once Close has begun it fails
// (Unavailable: "the NAME is closed"). It counts before it reads closing,
// so that Close either sees the count or the caller sees closing. Call
// Leave when Enter succeeded.
func (d *Drain) Enter(name string) error {
	d.calls.Add(1)
	if d.closing.Load() {
		d.calls.Add(-1)
		return abi.Errorf(abi.Unavailable, "the %s is closed", name)
	}
	return nil
}

// Leave ends what Enter counted.
func (d *Drain) Leave() { d.calls.Add(-1) }

// InFlight is the number of loads and calls in progress.
func (d *Drain) InFlight() int64 { return d.calls.Load() }

// Close refuses new loads and calls, waits at most wait for those in
// progress to end and runs release. When some are still running after
// wait, it returns an error naming name and runs release in the
// background once they have ended. Only the first Close does this; later
// ones return its error.
func (d *Drain) Close(name string, wait time.Duration, release func()) error {
	d.once.Do(func() {
		d.closing.Store(true)
		until := time.Now().Add(wait)
		for d.calls.Load() > 0 {
			if time.Now().After(until) {
				d.err = fmt.Errorf("%s: %d load(s) or call(s) still running %v after Close; the epoch ticker stops when they end", name, d.calls.Load(), wait)
				go func() {
					for d.calls.Load() > 0 {
						time.Sleep(10 * time.Millisecond)
					}
					release()
				}()
				return
			}
			time.Sleep(time.Millisecond)
		}
		release()
	})
	return d.err
}

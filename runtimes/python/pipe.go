package python

import (
	"time"

	"github.com/aios-host/aios-host/internal/pipe"
)

// Why the host spins (see docs/python.md, "Performance"): a warm call is
// two cross-process pipe wake-ups, host → worker and worker → host. On this
// kind of virtual machine a wake-up of a thread that sleeps on another,
// idle (halted) vCPU costs an inter-processor interrupt and VM exits:
// measured about 40 µs of CPU and more of latency per wake-up, more than
// the whole rest of a warm call. So after writing a call, the calling
// goroutine polls the worker's pipe with non-blocking reads for a short,
// bounded time (runtimes.python.spin) before it parks on Go's poller, and
// it tells the worker (the call envelope's "spin" key) to poll for the next
// call after writing its result. When the other side answers within the
// window, neither thread sleeps and no wake-up is paid.
//
// The host alone decides, per call, and the worker follows: a worker's
// spin pays only when the host spins for the answer too, and two separate
// controllers fell out of step (each one's probe failed because the other
// was asleep).
//
// Spins run out for three reasons: the tool is slow; both processes run on
// the same vCPU (the guest scheduler packs tasks), where spinning only keeps
// the other side from running and sleeping is cheap (a local wake-up, no
// interrupt); or the machine is busy. So spinning adapts:
//
//   - after more than spinMissesOK spins in a row ran out, the next 2, 4,
//     ... up to maxSpinSkip calls do not spin; a spin that catches the
//     answer resets that. A single miss changes nothing.
//   - a wait without spinning tells the cases apart: a short one (the same
//     vCPU) keeps skipping; one longer than 1/longWait of the window but
//     shorter than idleWait windows (an expensive cross-CPU wake-up that a
//     spin would have saved) counts twice, so spinning resumes sooner after
//     the processes are placed apart again.
//   - the first spin after a skip or a miss is probeSpin windows long: the
//     worker was asleep, and the probe has to cover its wake-up.
//   - a spinner is a CPU-bound task to the scheduler: on a CPU shared with
//     another busy task it is time-sliced instead of preempting that task
//     on wake-up as a sleeper would. A spin loop that sees a gap of more
//     than preemptGap between two iterations (one takes a microsecond or
//     two) was descheduled: it stops at once and skipping starts at once
//     (the worker stops its spin the same way).
//
// A slow tool or an idle provider therefore costs a spin window now and
// then; nothing spins while no call is in flight, except a worker for up
// to one window after its answer.
const (
	spinMissesOK = 2
	maxSpinSkip  = 256
	longWait     = 2
	idleWait     = 40
	probeSpin    = 2
)

// spinSkipAfter is how many calls skip spinning after misses spins in a
// row ran out.
func spinSkipAfter(misses int) int {
	if misses <= spinMissesOK {
		return 0
	}
	return min(1<<min(misses-spinMissesOK, 8), maxSpinSkip)
}

// spinSkipAfterWait is the calls left to skip after a wait without
// spinning that took waited.
func spinSkipAfterWait(skip int, spin, waited time.Duration) int {
	if skip > 0 && waited > spin/longWait && waited < idleWait*spin {
		return skip - 1
	}
	return skip
}

// The reader itself (spinning, parking, deadlines and cancellation polls)
// is internal/pipe's, shared with the JS runtime's worker processes.
type (
	pipeReader = pipe.Reader
	stopError  = pipe.StopError
)

var newPipeReader = pipe.NewReader

const cancelPoll = pipe.CancelPoll

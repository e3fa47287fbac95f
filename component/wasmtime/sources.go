//go:build wasmtime

package wasmtime

/*
#include "capi.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/wit"
)

// A component's WASI clocks and random source follow its grants, as on
// wazero (component.Sources): the host's when it asks for Clock / Random
// and is granted them, or the config gives them to every provider
// (Options.RealClock, RealRandom), else fake ones. wasmtime's own WASI 0.2
// has only the real ones, so the host defines wasi:clocks/wall-clock and
// wasi:random over them (addClock) and, for a provider without the real
// clock, serves the monotonic clock virtually (virtualClock).

// The host's wall-clock and random functions (aiosComponentHost ids).
const (
	hostWallNow = 110 + iota
	hostWallResolution
)

const (
	hostRandomBytes = 120 + iota
	hostRandomU64
	hostInsecureBytes
	hostInsecureU64
	hostInsecureSeed
)

// sourceIfaces are the interfaces defined over wasmtime's, in its WASI
// 0.2 version (the linker serves every 0.2.x import from it), with the
// id of their first function.
var sourceIfaces = []struct {
	name  string
	funcs []string
	first uintptr
}{
	{"wasi:clocks/wall-clock@0.2.6", []string{"now", "resolution"}, hostWallNow},
	{"wasi:random/random@0.2.6", []string{"get-random-bytes", "get-random-u64"}, hostRandomBytes},
	{"wasi:random/insecure@0.2.6", []string{"get-insecure-random-bytes", "get-insecure-random-u64"}, hostInsecureBytes},
	{"wasi:random/insecure-seed@0.2.6", []string{"insecure-seed"}, hostInsecureSeed},
}

var (
	u64Type      = wit.Primitive(wit.KindU64)
	datetimeType = &wit.Type{Kind: wit.KindRecord, Name: "datetime", Fields: []wit.Field{
		{Name: "seconds", Type: u64Type}, {Name: "nanoseconds", Type: wit.Primitive(wit.KindU32)}}}
	seedType = &wit.Type{Kind: wit.KindTuple, Tuple: []*wit.Type{u64Type, u64Type}}
)

// u64Arg is the one u64 argument of a host function.
func u64Arg(args *cval, nargs C.size_t) (uint64, error) {
	if nargs != 1 || args.kind != C.WASMTIME_COMPONENT_U64 {
		return 0, errors.New("want one u64 argument")
	}
	a := *args
	return *ofPtr[uint64](&a), nil
}

// sourcesHost serves the host's wall-clock and random function id.
func (inst *instance) sourcesHost(id uintptr, args *cval, nargs C.size_t, results *cval, nresults C.size_t) error {
	if nresults != 1 {
		return fmt.Errorf("WASI host function %d: want one result slot, have %d", id, nresults)
	}
	src, p := &inst.src, inst.p
	u64 := func() uint64 {
		var b [8]byte
		src.Random(b[:], p.realRandom)
		return binary.LittleEndian.Uint64(b[:])
	}
	var t *wit.Type
	var v wit.Value
	switch id {
	case hostWallNow:
		n := src.WallNow(p.realClock)
		t, v = datetimeType, wit.Record{n / 1e9, n % 1e9}
	case hostWallResolution:
		t, v = datetimeType, wit.Record{uint64(0), uint64(1)}
	case hostRandomBytes, hostInsecureBytes:
		n, err := u64Arg(args, nargs)
		if err != nil {
			return fmt.Errorf("wasi:random: %w", err)
		}
		if n > component.MaxRandomBytes {
			// As on wazero: a trap, not a host out of memory.
			return fmt.Errorf("random bytes: %d bytes asked, at most 1 MiB", n)
		}
		b := make([]byte, n)
		src.Random(b, p.realRandom)
		t, v = bytesType, b
	case hostRandomU64, hostInsecureU64:
		t, v = u64Type, u64()
	case hostInsecureSeed:
		t, v = seedType, wit.Tuple{u64(), u64()}
	default:
		return fmt.Errorf("no WASI host function %d", id)
	}
	return lower(t, v, results, 0)
}

// virtualClock serves the monotonic clock of a provider without the real
// one: now and resolution from the virtual clock (component.Sources), and
// a clock pollable as one of wasmtime's that is ready at once, the virtual
// clock moved to its end when it is made (wazero's moves it when the guest
// waits on it: here the wait runs inside wasmtime, which the host does not
// see). A sleep takes no time, as on wazero.
func (inst *instance) virtualClock(cx *C.wasmtime_context_t, id uintptr, args *cval, nargs C.size_t, results *cval, nresults C.size_t) error {
	src := &inst.src
	switch id {
	case hostClockNow, hostClockResolution:
		if nresults != 1 {
			return errors.New("wasi:clocks/monotonic-clock: want one result slot")
		}
		n := uint64(1)
		if id == hostClockNow {
			n = src.MonotonicNow(false)
		}
		return lower(u64Type, n, results, 0)
	case hostClockSubscribeDuration, hostClockSubscribeInstant:
		n, err := u64Arg(args, nargs)
		if err != nil {
			return fmt.Errorf("wasi:clocks/monotonic-clock: %w", err)
		}
		if id == hostClockSubscribeDuration {
			if v := src.Virtual(); n > math.MaxUint64-v {
				n = math.MaxUint64
			} else {
				n += v
			}
		}
		src.WaitedUntil(n)
		var zero cval
		zero.kind = C.WASMTIME_COMPONENT_U64
		return inst.callClock(cx, int(hostClockSubscribeDuration-hostClockNow), &zero, 1, results, nresults)
	}
	return fmt.Errorf("no clock function %d", id)
}

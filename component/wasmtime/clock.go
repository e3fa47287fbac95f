//go:build wasmtime

package wasmtime

/*
#include "capi.h"
extern wasmtime_error_t *aios_add_func(wasmtime_component_linker_instance_t *li, const char *name, size_t n, uintptr_t id);
extern void wasmtime_component_linker_allow_shadowing(wasmtime_component_linker_t *linker, bool allow);
*/
import "C"

import (
	"encoding/hex"
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// A sleep in wasmtime's own WASI 0.2 (pollable.block or poll on a
// pollable of wasi:clocks/monotonic-clock) waits in native code that the
// epoch callback cannot interrupt: a guest sleeping past its deadline held
// its instance until the sleep ended. So the host defines
// wasi:clocks/monotonic-clock over wasmtime's (the linker shadows it) and
// ends every clock pollable at the running code's deadline at the latest,
// as the core-module engine caps poll_oneoff (runtimes/wasm
// wasmtime_wasi.go). The pollables stay wasmtime's own (its streams and
// poll functions know no other): each function calls wasmtime's through a
// small proxy component (clockProxyHex), instantiated in every store with
// a linker that has wasmtime's WASI alone. A pollable the guest keeps
// for a later call ends at the deadline of the call that made it: an idle
// instance holding one that ends after a call's deadline does not serve
// that call (Provider.get). The other WASI pollables never
// wait: stdout and stderr go to the host, stdin is empty, sockets are
// denied.

// clockIface is the monotonic clock's name in wasmtime's WASI 0.2 (the
// version it defines; the linker serves every 0.2.x import from it).
const clockIface = "wasi:clocks/monotonic-clock@0.2.6"

// The host's monotonic-clock functions (aiosComponentHost ids), in the
// proxy's export order.
const (
	hostClockNow = 100 + iota
	hostClockResolution
	hostClockSubscribeInstant
	hostClockSubscribeDuration
)

var clockFuncs = [...]string{"now", "resolution", "subscribe-instant", "subscribe-duration"}

// clockProxyHex is `jco parse` of this component, which exports
// wasmtime's monotonic-clock functions as they are:
//
//	(component $C
//	  (import "wasi:io/poll@0.2.6" (instance $poll (export "pollable" (type (sub resource)))))
//	  (alias export $poll "pollable" (type $pollable))
//	  (import "wasi:clocks/monotonic-clock@0.2.6" (instance $clock
//	    (alias outer $C $pollable (type $p))
//	    (export "pollable" (type $pe (eq $p)))
//	    (export "now" (func (result u64)))
//	    (export "resolution" (func (result u64)))
//	    (export "subscribe-instant" (func (param "when" u64) (result (own $pe))))
//	    (export "subscribe-duration" (func (param "when" u64) (result (own $pe))))))
//	  (core func $now (canon lower (func $clock "now")))
//	  … $res, $si, $sd likewise
//	  (core module $m
//	    (import "c" "now" (func $now (result i64))) …
//	    (func (export "now") (result i64) (call $now)) …)
//	  (core instance $ci (instantiate $m (with "c" (instance …))))
//	  (type $own (own $pollable))
//	  (func (export "now") (result u64) (canon lift (core func $ci "now")))
//	  (func (export "resolution") (result u64) (canon lift (core func $ci "res")))
//	  (func (export "subscribe-instant") (param "when" u64) (result $own) (canon lift (core func $ci "si")))
//	  (func (export "subscribe-duration") (param "when" u64) (result $own) (canon lift (core func $ci "sd"))))
const clockProxyHex = "0061736d0d0001000710014201040008706f6c6c61626c6503010a17010012776173693a696f2f706f6c6c40302e322e360500060d0103000008706f6c6c61626c6507800101420c0203020101040008706f6c6c61626c6503000001400000770400036e6f770102014000007704000a7265736f6c7574696f6e0103016901014001047768656e7700040400117375627363726962652d696e7374616e740105016901014001047768656e7700060400127375627363726962652d6475726174696f6e01070a26010021776173693a636c6f636b732f6d6f6e6f746f6e69632d636c6f636b40302e322e360502060801010001036e6f7708050101000000060f010100010a7265736f6c7574696f6e08050101000100061601010001117375627363726962652d696e7374616e7408050101000200061701010001127375627363726962652d6475726174696f6e080501010003000190010061736d01000000010a026000017e60017e017f021f040163036e6f7700000163037265730000016302736900010163027364000103050400000101071704036e6f770004037265730005027369000602736400070a1904040010000b040010010b0600200010020b0600200010030b001e046e616d650002016d01130400036e6f77010372657302027369030273640220020104036e6f770000037265730001027369000202736400030000010163120007070269014000007706090100000101036e6f7708060100000400040705014000007706090100000101037265730806010000050005070b014001047768656e770003060801000001010273690806010000060006070b014001047768656e7700030608010000010102736408060100000700070b450400036e6f77010400000a7265736f6c7574696f6e01050000117375627363726962652d696e7374616e7401060000127375627363726962652d6475726174696f6e010700005f0e636f6d706f6e656e742d6e616d6500020143011500000400036e6f7701037265730202736903027364010600110100016d010700120101026369011103020108706f6c6c61626c6503036f776e010f05020004706f6c6c0105636c6f636b"

// clockProxy is the proxy compiled once per loader, and its linker.
type clockProxy struct {
	comp   *C.wasmtime_component_t
	linker *C.wasmtime_component_linker_t
	idx    [len(clockFuncs)]*C.wasmtime_component_export_index_t
	err    error
}

func (l *Loader) initClock() {
	cp := &l.clock
	b, err := hex.DecodeString(clockProxyHex)
	if err != nil {
		cp.err = err
		return
	}
	if cp.err = takeError(C.wasmtime_component_new(l.engine, (*C.uint8_t)(unsafe.Pointer(&b[0])), C.size_t(len(b)), &cp.comp)); cp.err != nil {
		return
	}
	cp.linker = C.wasmtime_component_linker_new(l.engine)
	if cp.err = takeError(C.wasmtime_component_linker_add_wasip2(cp.linker)); cp.err != nil {
		return
	}
	for i, f := range clockFuncs {
		if cp.idx[i] = exportIndex(cp.comp, nil, f); cp.idx[i] == nil {
			cp.err = fmt.Errorf("the clock proxy exports no %s", f)
			return
		}
	}
}

func (cp *clockProxy) free() {
	for i, x := range cp.idx {
		if x != nil {
			C.wasmtime_component_export_index_delete(x)
			cp.idx[i] = nil
		}
	}
	if cp.linker != nil {
		C.wasmtime_component_linker_delete(cp.linker)
		cp.linker = nil
	}
	if cp.comp != nil {
		C.wasmtime_component_delete(cp.comp)
		cp.comp = nil
	}
}

// addClock shadows wasmtime's monotonic clock, wall clock and random
// sources in lk with the host's (sources.go).
func addClock(lk *C.wasmtime_component_linker_t) error {
	C.wasmtime_component_linker_allow_shadowing(lk, true)
	defer C.wasmtime_component_linker_allow_shadowing(lk, false)
	if err := addFuncs(lk, clockIface, clockFuncs[:], hostClockNow); err != nil {
		return err
	}
	for _, si := range sourceIfaces {
		if err := addFuncs(lk, si.name, si.funcs, si.first); err != nil {
			return err
		}
	}
	return nil
}

// addFuncs defines iface in lk with funcs, served by aiosComponentHost
// with the ids from first on.
func addFuncs(lk *C.wasmtime_component_linker_t, iface string, funcs []string, first uintptr) error {
	root := C.wasmtime_component_linker_root(lk)
	defer C.wasmtime_component_linker_instance_delete(root)
	var li *C.wasmtime_component_linker_instance_t
	cs := C.CString(iface)
	err := takeError(C.wasmtime_component_linker_instance_add_instance(root, cs, C.size_t(len(iface)), &li))
	C.free(unsafe.Pointer(cs))
	if err != nil {
		return err
	}
	defer C.wasmtime_component_linker_instance_delete(li)
	for i, f := range funcs {
		fs := C.CString(f)
		err := takeError(C.aios_add_func(li, fs, C.size_t(len(f)), C.uintptr_t(first+uintptr(i))))
		C.free(unsafe.Pointer(fs))
		if err != nil {
			return fmt.Errorf("%s#%s: %w", iface, f, err)
		}
	}
	return nil
}

// startClock instantiates the proxy in inst's store.
func (inst *instance) startClock() error {
	cp := &inst.p.l.clock
	var ci C.wasmtime_component_instance_t
	if err := takeError(C.wasmtime_component_linker_instantiate(cp.linker, inst.cx, cp.comp, &ci)); err != nil {
		return fmt.Errorf("clock proxy: %w", err)
	}
	for i, x := range cp.idx {
		if !C.wasmtime_component_instance_get_func(&ci, inst.cx, x, &inst.clock[i]) {
			return fmt.Errorf("clock proxy: %s is not a function", clockFuncs[i])
		}
	}
	return nil
}

// callClock calls the proxy's function i (wasmtime's) with args into
// results.
func (inst *instance) callClock(cx *C.wasmtime_context_t, i int, args *cval, nargs C.size_t, results *cval, nresults C.size_t) error {
	f := &inst.clock[i]
	if err := takeError(C.wasmtime_component_func_call(f, cx, args, nargs, results, nresults)); err != nil {
		return err
	}
	return takeError(C.wasmtime_component_func_post_return(f, cx))
}

// clockHost serves the host's monotonic-clock function id: the virtual
// clock of a provider without the real one (virtualClock), else
// wasmtime's, with a pollable's end moved to the running code's deadline
// when it is later.
func (inst *instance) clockHost(id uintptr, cx *C.wasmtime_context_t, args *cval, nargs C.size_t, results *cval, nresults C.size_t) error {
	i := int(id - hostClockNow)
	if i < 0 || i >= len(clockFuncs) {
		return fmt.Errorf("no clock function %d", id)
	}
	if !inst.p.realClock {
		return inst.virtualClock(cx, id, args, nargs, results, nresults)
	}
	if (id != hostClockSubscribeInstant && id != hostClockSubscribeDuration) || inst.dl.IsZero() {
		return inst.callClock(cx, i, args, nargs, results, nresults)
	}
	if nargs != 1 || args.kind != C.WASMTIME_COMPONENT_U64 {
		return errors.New("wasi:clocks/monotonic-clock: want one u64 argument")
	}
	a := *args
	v := ofPtr[uint64](&a)
	start := time.Now()
	left := uint64(max(inst.dl.Sub(start), 0))
	in := *v // how long from now the pollable waits
	if id == hostClockSubscribeDuration {
		*v = min(*v, left)
		in = *v
	} else {
		var now cval
		if err := inst.callClock(cx, 0, nil, 0, &now, 1); err != nil {
			return err
		}
		n := *ofPtr[uint64](&now)
		if end := n + left; *v > end {
			*v = end
		}
		in = max(*v, n) - n
	}
	// The guest may keep the pollable and wait on it in a later call
	// (get).
	if end := start.Add(time.Duration(in)); end.After(inst.clockEnd) {
		inst.clockEnd = end
	}
	return inst.callClock(cx, i, &a, 1, results, nresults)
}

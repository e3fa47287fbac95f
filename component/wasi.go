package component

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/aios-host/aios-host/wit"
)

// The WASI 0.2 subset, deny by default: stdout and stderr go to the host
// log (capped per call), stdin is empty, no directory is preopened (so every
// filesystem operation fails with error-code.access), no environment, no
// arguments, clocks and random work, and pollables are always ready. Host
// resources live in a per-instance handle table; handles are never
// component-defined resources.

// handleTable maps resource handles (1-based) to host objects.
type handleTable struct {
	items []any
	free  []uint32
}

func (t *handleTable) add(v any) wit.Handle {
	if n := len(t.free); n > 0 {
		h := t.free[n-1]
		t.free = t.free[:n-1]
		t.items[h-1] = v
		return wit.Handle(h)
	}
	t.items = append(t.items, v)
	return wit.Handle(len(t.items))
}

// maxHandles bounds the live handles of one instance. A guest that asks
// for get-stdout in a loop and drops nothing grew the table by 16 bytes a
// call, kept across the calls of a pooled instance: 10 M handles in a
// 10-second call, without end over many calls.
const maxHandles = 1 << 16

// put adds v like add, unless the instance holds maxHandles handles already.
func (t *handleTable) put(v any) (wit.Handle, error) {
	if len(t.items)-len(t.free) >= maxHandles {
		return 0, fmt.Errorf("the component holds %d resource handles, the most one instance may hold: drop the ones it no longer needs", maxHandles)
	}
	return t.add(v), nil
}

func (t *handleTable) get(h wit.Handle) (any, error) {
	if h == 0 || int(h) > len(t.items) || t.items[h-1] == nil {
		return nil, fmt.Errorf("invalid resource handle %d", h)
	}
	return t.items[h-1], nil
}

func (t *handleTable) remove(h wit.Handle) error {
	if _, err := t.get(h); err != nil {
		return err
	}
	t.items[h-1] = nil
	t.free = append(t.free, uint32(h))
	return nil
}

type outStream struct{ stderr bool }
type inStream struct{}

// pollable is a wasi:io/poll pollable. Every one is ready at once; one
// from the monotonic clock of a guest without Clock carries the virtual
// instant it waits for (until, 0 for none), which waiting on it moves the
// clock to (monotonicNow: a sleep takes no time and the clock stays
// consistent with it).
type pollable struct{ until uint64 }
type wasiError struct{ msg string }
type terminal struct{}

func (st *callState) output(stderr bool, b []byte) {
	if st == nil || st.env == nil {
		return
	}
	st.out.Write(st.ctx, st.env.Logger(), stderr, b)
}

func borrowed[T any](inst *instance, v wit.Value) (T, error) {
	var zero T
	h, _ := v.(wit.Handle)
	x, err := inst.table.get(h)
	if err != nil {
		return zero, err
	}
	t, ok := x.(T)
	if !ok {
		return zero, fmt.Errorf("resource handle %d has the wrong type", h)
	}
	return t, nil
}

var streamClosed = wit.Variant{Case: 1} // stream-error.closed

func okUnit() wit.Value { return wit.Result{} }

func writeStream(st *callState, inst *instance, a []wit.Value) (wit.Value, error) {
	s, err := borrowed[*outStream](inst, a[0])
	if err != nil {
		return nil, err
	}
	b, _ := a[1].([]byte)
	st.output(s.stderr, b)
	return okUnit(), nil
}

func newPollable(_ *callState, inst *instance, _ []wit.Value) (wit.Value, error) {
	return inst.table.put(&pollable{})
}

// clockPollable is subscribe-duration (instant false: a[0] is a duration)
// and subscribe-instant (an instant of the monotonic clock).
func clockPollable(instant bool) hostFunc {
	return func(_ *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		p := &pollable{}
		if !inst.p.realClock {
			n, _ := a[0].(uint64)
			if !instant {
				n = satAdd(inst.src.Virtual(), n)
			}
			p.until = n
		}
		return inst.table.put(p)
	}
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// waited moves the virtual monotonic clock to the instant pollable v
// waits for, if it is later.
func waited(inst *instance, v wit.Value) {
	if inst.p.realClock {
		return
	}
	if p, err := borrowed[*pollable](inst, v); err == nil {
		inst.src.WaitedUntil(p.until)
	}
}

func randomBytes(_ *callState, inst *instance, a []wit.Value) (wit.Value, error) {
	n, _ := a[0].(uint64)
	if n > MaxRandomBytes {
		return nil, fmt.Errorf("random bytes: %d bytes asked, at most 1 MiB", n)
	}
	b := make([]byte, n)
	inst.random(b)
	return b, nil
}

func randomU64(_ *callState, inst *instance, _ []wit.Value) (wit.Value, error) {
	var b [8]byte
	inst.random(b[:])
	return binary.LittleEndian.Uint64(b[:]), nil
}

// random fills b from the instance's random source (Sources.Random).
func (inst *instance) random(b []byte) { inst.src.Random(b, inst.p.realRandom) }

// monotonicNow is the instance's monotonic clock (Sources.MonotonicNow).
func (inst *instance) monotonicNow() uint64 { return inst.src.MonotonicNow(inst.p.realClock) }

// wallNow is the instance's wall clock (Sources.WallNow).
func (inst *instance) wallNow() uint64 { return inst.src.WallNow(inst.p.realClock) }

// wasiFuncs are the WASI 0.2 functions, by version-less interface name and
// function name. It is read-only.
var wasiFuncs = map[string]hostFunc{
	"wasi:cli/stdout#get-stdout": func(_ *callState, inst *instance, _ []wit.Value) (wit.Value, error) {
		return inst.table.put(&outStream{})
	},
	"wasi:cli/stderr#get-stderr": func(_ *callState, inst *instance, _ []wit.Value) (wit.Value, error) {
		return inst.table.put(&outStream{stderr: true})
	},
	"wasi:cli/stdin#get-stdin": func(_ *callState, inst *instance, _ []wit.Value) (wit.Value, error) {
		return inst.table.put(&inStream{})
	},
	"wasi:cli/terminal-stdin#get-terminal-stdin":   noneFunc,
	"wasi:cli/terminal-stdout#get-terminal-stdout": noneFunc,
	"wasi:cli/terminal-stderr#get-terminal-stderr": noneFunc,
	"wasi:cli/environment#get-environment":         emptyList,
	"wasi:cli/environment#get-arguments":           emptyList,
	"wasi:cli/environment#initial-cwd":             noneFunc,
	"wasi:cli/exit#exit": func(_ *callState, _ *instance, a []wit.Value) (wit.Value, error) {
		if r, ok := a[0].(wit.Result); ok && !r.IsErr {
			return nil, fmt.Errorf("the guest called wasi:cli/exit.exit(ok)")
		}
		return nil, fmt.Errorf("the guest called wasi:cli/exit.exit(err)")
	},
	"wasi:io/streams#[method]output-stream.check-write": func(_ *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		if _, err := borrowed[*outStream](inst, a[0]); err != nil {
			return nil, err
		}
		return wit.Result{Val: uint64(MaxGuestOutput)}, nil
	},
	"wasi:io/streams#[method]output-stream.write":                    writeStream,
	"wasi:io/streams#[method]output-stream.blocking-write-and-flush": writeStream,
	"wasi:io/streams#[method]output-stream.flush":                    func(*callState, *instance, []wit.Value) (wit.Value, error) { return okUnit(), nil },
	"wasi:io/streams#[method]output-stream.blocking-flush":           func(*callState, *instance, []wit.Value) (wit.Value, error) { return okUnit(), nil },
	"wasi:io/streams#[method]output-stream.subscribe":                newPollable,
	"wasi:io/streams#[method]input-stream.subscribe":                 newPollable,
	"wasi:io/streams#[method]input-stream.read": func(*callState, *instance, []wit.Value) (wit.Value, error) {
		return wit.Result{IsErr: true, Val: streamClosed}, nil
	},
	"wasi:io/streams#[method]input-stream.blocking-read": func(*callState, *instance, []wit.Value) (wit.Value, error) {
		return wit.Result{IsErr: true, Val: streamClosed}, nil
	},
	"wasi:io/error#[method]error.to-debug-string": func(_ *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		e, err := borrowed[*wasiError](inst, a[0])
		if err != nil {
			return nil, err
		}
		return e.msg, nil
	},
	"wasi:io/poll#[method]pollable.ready": func(_ *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		waited(inst, a[0])
		return true, nil
	},
	"wasi:io/poll#[method]pollable.block": func(_ *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		waited(inst, a[0])
		return nil, nil
	},
	"wasi:io/poll#poll": func(_ *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		list, _ := a[0].([]wit.Value)
		if len(list) == 0 {
			return nil, fmt.Errorf("wasi:io/poll.poll of an empty list (poll traps then)")
		}
		out := make([]wit.Value, len(list))
		for i := range list {
			waited(inst, list[i])
			out[i] = uint64(i)
		}
		return out, nil
	},
	"wasi:clocks/monotonic-clock#now": func(_ *callState, inst *instance, _ []wit.Value) (wit.Value, error) {
		return inst.monotonicNow(), nil
	},
	"wasi:clocks/monotonic-clock#resolution": func(*callState, *instance, []wit.Value) (wit.Value, error) {
		return uint64(1), nil
	},
	"wasi:clocks/monotonic-clock#subscribe-duration": clockPollable(false),
	"wasi:clocks/monotonic-clock#subscribe-instant":  clockPollable(true),
	"wasi:clocks/wall-clock#now": func(_ *callState, inst *instance, _ []wit.Value) (wit.Value, error) {
		n := inst.wallNow()
		return wit.Record{n / 1e9, n % 1e9}, nil
	},
	"wasi:clocks/wall-clock#resolution": func(*callState, *instance, []wit.Value) (wit.Value, error) {
		return wit.Record{uint64(0), uint64(1)}, nil
	},
	"wasi:random/random#get-random-bytes":            randomBytes,
	"wasi:random/random#get-random-u64":              randomU64,
	"wasi:random/insecure#get-insecure-random-bytes": randomBytes,
	"wasi:random/insecure#get-insecure-random-u64":   randomU64,
	"wasi:random/insecure-seed#insecure-seed": func(st *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		x, _ := randomU64(st, inst, a)
		y, _ := randomU64(st, inst, a)
		return wit.Tuple{x, y}, nil
	},
	"wasi:filesystem/preopens#get-directories":    emptyList,
	"wasi:filesystem/types#filesystem-error-code": noneFunc,
}

func noneFunc(*callState, *instance, []wit.Value) (wit.Value, error) { return wit.Option{}, nil }

func emptyList(*callState, *instance, []wit.Value) (wit.Value, error) { return []wit.Value{}, nil }

// resourceName is the WIT name of the resource a host object is.
func resourceName(x any) string {
	switch x.(type) {
	case *outStream:
		return "output-stream"
	case *inStream:
		return "input-stream"
	case *pollable:
		return "pollable"
	case *wasiError:
		return "error"
	}
	return fmt.Sprintf("%T", x)
}

// handleOf returns the live handle v of resource r, or the trap of
// lift_borrow / canon resource.drop: a handle that is not in the table or
// is of another resource type.
func handleOf(inst *instance, r *wit.Resource, v wit.Value) (wit.Handle, error) {
	h, _ := v.(wit.Handle)
	x, err := inst.table.get(h)
	if err != nil {
		return h, err
	}
	if r != nil && resourceName(x) != r.Name {
		return h, fmt.Errorf("resource handle %d is a %s, not a %s", h, resourceName(x), r.Name)
	}
	return h, nil
}

// checkHandles checks every handle in v (of type t) with handleOf, as
// lifting the arguments of a host function does.
func checkHandles(inst *instance, t *wit.Type, v wit.Value) error {
	if t == nil {
		return nil
	}
	switch t.Kind {
	case wit.KindOwn, wit.KindBorrow:
		_, err := handleOf(inst, t.Resource, v)
		return err
	case wit.KindList:
		xs, _ := v.([]wit.Value)
		for _, x := range xs {
			if err := checkHandles(inst, t.Elem, x); err != nil {
				return err
			}
		}
	case wit.KindRecord, wit.KindTuple:
		xs, _ := v.(wit.Record)
		if t.Kind == wit.KindTuple {
			tx, _ := v.(wit.Tuple)
			xs = wit.Record(tx)
		}
		for i, x := range xs {
			ft := (*wit.Type)(nil)
			if t.Kind == wit.KindRecord && i < len(t.Fields) {
				ft = t.Fields[i].Type
			} else if i < len(t.Tuple) {
				ft = t.Tuple[i]
			}
			if err := checkHandles(inst, ft, x); err != nil {
				return err
			}
		}
	case wit.KindOption:
		if o, ok := v.(wit.Option); ok && o.Some {
			return checkHandles(inst, t.Elem, o.Val)
		}
	case wit.KindResult:
		if r, ok := v.(wit.Result); ok {
			if r.IsErr {
				return checkHandles(inst, t.Err, r.Val)
			}
			return checkHandles(inst, t.Ok, r.Val)
		}
	case wit.KindVariant:
		if x, ok := v.(wit.Variant); ok && int(x.Case) < len(t.Cases) {
			return checkHandles(inst, t.Cases[x.Case].Type, x.Val)
		}
	}
	return nil
}

// holdsHandles tells whether a handle is somewhere in t (a tree of at most
// wit.MaxFuncTreeSize parts: the load refuses larger ones).
func holdsHandles(t *wit.Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind {
	case wit.KindOwn, wit.KindBorrow:
		return true
	case wit.KindList, wit.KindOption:
		return holdsHandles(t.Elem)
	case wit.KindResult:
		return holdsHandles(t.Ok) || holdsHandles(t.Err)
	case wit.KindRecord:
		for _, f := range t.Fields {
			if holdsHandles(f.Type) {
				return true
			}
		}
	case wit.KindTuple:
		for _, x := range t.Tuple {
			if holdsHandles(x) {
				return true
			}
		}
	case wit.KindVariant:
		for _, c := range t.Cases {
			if holdsHandles(c.Type) {
				return true
			}
		}
	}
	return false
}

// dropResource is canon resource.drop of the host resource name: the
// handle must be a live one of that resource.
func dropResource(name string) hostFunc {
	r := &wit.Resource{Name: name}
	return func(_ *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		h, err := handleOf(inst, r, a[0])
		if err != nil {
			return nil, fmt.Errorf("resource.drop of %s: %w", name, err)
		}
		return nil, inst.table.remove(h)
	}
}

// hostImpl finds the host implementation of an imported function: the
// aios:sdk functions, the WASI subset, resource drops, and for the rest of
// wasi:filesystem a denial (error-code.access) when the function can report
// one.
func hostImpl(iface, fun string, f *wit.Func) (hostFunc, bool) {
	key, ok := importKey(iface, fun)
	if !ok {
		return nil, false
	}
	if h, ok := sdkFuncs[key]; ok {
		return h, true
	}
	if h, ok := wasiFuncs[key]; ok {
		return h, true
	}
	if name, ok := strings.CutPrefix(fun, "[resource-drop]"); ok {
		return dropResource(name), true
	}
	if strings.HasPrefix(key, "wasi:filesystem/") && f.Result != nil && f.Result.Kind == wit.KindResult &&
		f.Result.Err != nil && f.Result.Err.Kind == wit.KindEnum {
		for i, n := range f.Result.Err.Names {
			if n == "access" {
				denied := wit.Result{IsErr: true, Val: wit.Enum(i)}
				return func(*callState, *instance, []wit.Value) (wit.Value, error) { return denied, nil }, true
			}
		}
	}
	return nil, false
}

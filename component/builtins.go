package component

import (
	"fmt"

	"github.com/aios-host/aios-host/component/cabi"
)

// Canon built-ins of the concurrency proposal that synchronous guest
// runtimes (componentize-js) import. A synchronous call has one implicit
// task: context.get/set keep its two context slots (zeroed at each call),
// backpressure and thread.yield are no-ops; the rest can only be reached by
// async code, which aios-host does not run, and trap if called.

type builtinSig struct{ params, results []cabi.CoreType }

const i32 = cabi.I32

// builtinSigs is read-only.
var builtinSigs = map[string]builtinSig{
	"context.get":       {nil, []cabi.CoreType{i32}},
	"context.set":       {[]cabi.CoreType{i32}, nil},
	"backpressure.inc":  {nil, nil},
	"backpressure.dec":  {nil, nil},
	"thread.yield":      {nil, []cabi.CoreType{i32}},
	"task.cancel":       {nil, nil},
	"subtask.cancel":    {[]cabi.CoreType{i32}, []cabi.CoreType{i32}},
	"subtask.drop":      {[]cabi.CoreType{i32}, nil},
	"waitable-set.new":  {nil, []cabi.CoreType{i32}},
	"waitable-set.drop": {[]cabi.CoreType{i32}, nil},
	"waitable.join":     {[]cabi.CoreType{i32, i32}, nil},
	"waitable-set.wait": {[]cabi.CoreType{i32, i32}, []cabi.CoreType{i32}},
	"waitable-set.poll": {[]cabi.CoreType{i32, i32}, []cabi.CoreType{i32}},
}

// builtin runs built-in name on the raw core stack.
func (inst *instance) builtin(name string, slot uint32, stack []uint64) error {
	switch name {
	case "context.get":
		if slot >= uint32(len(inst.ctxSlots)) {
			return fmt.Errorf("context.get of slot %d", slot)
		}
		stack[0] = uint64(inst.ctxSlots[slot])
	case "context.set":
		if slot >= uint32(len(inst.ctxSlots)) {
			return fmt.Errorf("context.set of slot %d", slot)
		}
		inst.ctxSlots[slot] = uint32(stack[0])
	case "backpressure.inc", "backpressure.dec":
	case "thread.yield":
		stack[0] = 0 // not cancelled
	default:
		return fmt.Errorf("the guest called canon %s, an async built-in; aios-host runs components synchronously", name)
	}
	return nil
}

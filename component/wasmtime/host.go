//go:build wasmtime

package wasmtime

/*
#include "capi.h"
extern uintptr_t aios_store_data(wasmtime_context_t *c);
*/
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/cgo"
	"time"
	"unsafe"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/internal/busy"
	iwire "github.com/aios-host/aios-host/internal/wire"
)

// The aios:sdk@0.1.0 host functions (component/wit/aios-sdk.wit), by id.
const (
	hostSpacesRead = iota
	hostSpacesWrite
	hostCallTool
	hostLog
)

var sdkInterfaces = []struct {
	name  string
	funcs []struct {
		name string
		id   uintptr
	}
}{
	{"aios:sdk/spaces@0.1.0", []struct {
		name string
		id   uintptr
	}{{"read", hostSpacesRead}, {"write", hostSpacesWrite}}},
	{"aios:sdk/tools@0.1.0", []struct {
		name string
		id   uintptr
	}{{"call-tool", hostCallTool}}},
	{"aios:sdk/log@0.1.0", []struct {
		name string
		id   uintptr
	}{{"log", hostLog}}},
}

// callState is what the host functions see during one call.
type callState struct {
	ctx    context.Context
	env    abi.Env
	p      *Provider // whose guest runs: its nested calls back into p do not wait for a busy instance
	logged int
	// nested maps the message of a ToolError handed to the guest by
	// call-tool, spaces.read or spaces.write back to the error, so that
	// a guest passing it through returns the same code.
	nested  map[string]*abi.ToolError
	hostErr error
	// The guest's stdout and stderr (output.go).
	out component.GuestOutput
	// deadline is the call's; awaited names the call-tool the guest was
	// in when the deadline passed or its caller cancelled ("" if none).
	deadline time.Time
	awaited  string
}

// while is " while it awaited …" when the call ended (deadline, cancel)
// while the guest waited in call-tool, else "".
func (st *callState) while() string {
	if st == nil || st.awaited == "" {
		return ""
	}
	return " while it awaited " + st.awaited
}

// hostError is the error string handed to the guest for a host call's
// failure, remembered as the wazero engine's (component/call.go): a
// spaces.read NotFound a guest passed on reached its caller as
// ProviderError "NotFound: …".
func (st *callState) hostError(err error) string {
	return component.RememberHostError(&st.nested, err)
}

//export aiosComponentHost
func aiosComponentHost(data unsafe.Pointer, cx *C.wasmtime_context_t, _ unsafe.Pointer, args *C.wasmtime_component_val_t, nargs C.size_t, results *C.wasmtime_component_val_t, nresults C.size_t) (ret *C.wasmtime_error_t) {
	id := uintptr(data)
	inst, _ := cgo.Handle(C.aios_store_data(cx)).Value().(*instance)
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("aios:sdk host function %d panicked: %v", id, r)
			if inst != nil && inst.state != nil {
				inst.state.hostErr = fmt.Errorf("%s", msg)
			}
			ret = newError(msg)
		}
	}()
	if inst == nil {
		return newError("aios:sdk: no instance for this store")
	}
	if id >= hostWallNow {
		if err := inst.sourcesHost(id, args, nargs, results, nresults); err != nil {
			return newError(err.Error())
		}
		return nil
	}
	if id >= hostClockNow {
		if err := inst.clockHost(id, cx, args, nargs, results, nresults); err != nil {
			return newError(err.Error())
		}
		return nil
	}
	st := inst.state
	a := valsSlice(args, int(nargs))
	r := valsSlice(results, int(nresults))
	str := func(i int) (string, error) {
		if i >= len(a) || a[i].kind != C.WASMTIME_COMPONENT_STRING {
			return "", fmt.Errorf("argument %d is not a string", i)
		}
		return nameString(ofPtr[C.wasm_name_t](&a[i])), nil
	}
	fail := func(err error) *C.wasmtime_error_t {
		if st != nil {
			st.hostErr = err
		}
		return newError(err.Error())
	}
	// setResult writes result<ok, string> into results[0].
	setResult := func(ok func(*cval), errMsg string, isErr bool) *C.wasmtime_error_t {
		if len(r) < 1 {
			return fail(fmt.Errorf("aios:sdk host function %d: no result slot", id))
		}
		var tmp cval
		if isErr {
			tmp.kind = C.WASMTIME_COMPONENT_STRING
			setName(ofPtr[C.wasm_name_t](&tmp), errMsg)
		} else {
			ok(&tmp)
		}
		r[0].kind = C.WASMTIME_COMPONENT_RESULT
		x := ofPtr[C.wasmtime_component_valresult_t](&r[0])
		x.is_ok = C.bool(!isErr)
		x.val = C.wasmtime_component_val_new(&tmp)
		return nil
	}
	stringOK := func(s string) func(*cval) {
		return func(v *cval) {
			v.kind = C.WASMTIME_COMPONENT_STRING
			setName(ofPtr[C.wasm_name_t](v), s)
		}
	}
	if st == nil || st.env == nil {
		if id == hostLog {
			return nil
		}
		if st == nil {
			return setResult(nil, "no host environment (host calls are served only during a tool call)", true)
		}
		what := map[int]string{hostSpacesRead: "spaces.read", hostSpacesWrite: "spaces.write", hostCallTool: "tools.call-tool"}[int(id)]
		return setResult(nil, st.hostError(component.NoEnv(what)), true)
	}
	switch id {
	case hostSpacesRead:
		oid, err := str(0)
		if err != nil {
			return fail(err)
		}
		obj, err := component.ReadObject(st.ctx, st.env, oid, st.p.memBytes())
		if err != nil {
			return setResult(nil, st.hostError(err), true)
		}
		return setResult(func(v *cval) {
			if err := lower(bytesType, obj.Data, v, 0); err != nil {
				panic(err)
			}
		}, "", false)
	case hostSpacesWrite:
		space, err := str(0)
		if err != nil {
			return fail(err)
		}
		if len(a) < 2 || a[1].kind != C.WASMTIME_COMPONENT_LIST {
			return fail(fmt.Errorf("spaces.write: data is not a list"))
		}
		d, err := lift(bytesType, &a[1], 0, newLiftBudget())
		if err != nil {
			return fail(fmt.Errorf("spaces.write: data: %w", err))
		}
		obj, err := st.env.SpaceWrite(st.ctx, space, d.([]byte))
		if err != nil {
			return setResult(nil, st.hostError(err), true)
		}
		return setResult(stringOK(obj.ID), "", false)
	case hostCallTool:
		name, err := str(0)
		if err != nil {
			return fail(err)
		}
		pj, err := str(1)
		if err != nil {
			return fail(err)
		}
		var params any
		if err := iwire.UnmarshalGuestJSON([]byte(pj), &params); err != nil {
			return setResult(nil, "call-tool: params-json: "+err.Error(), true)
		}
		res, err := st.env.CallTool(context.WithValue(st.ctx, nestKey{st.p}, busy.NewChain()), name, "", params)
		if st.ctx.Err() != nil || !st.deadline.IsZero() && !time.Now().Before(st.deadline) {
			st.awaited = fmt.Sprintf("tools.call-tool(%.64q)", name)
		}
		if err != nil {
			return setResult(nil, st.hostError(err), true)
		}
		b, err := json.Marshal(abi.ForJSON(res))
		if err != nil {
			return setResult(nil, err.Error(), true)
		}
		return setResult(stringOK(string(b)), "", false)
	case hostLog:
		if len(a) < 2 || a[0].kind != C.WASMTIME_COMPONENT_ENUM {
			return fail(fmt.Errorf("log: bad arguments"))
		}
		msg, err := str(1)
		if err != nil {
			return fail(err)
		}
		level := slog.LevelInfo
		switch nameString(ofPtr[C.wasm_name_t](&a[0])) {
		case "debug":
			level = slog.LevelDebug
		case "warn":
			level = slog.LevelWarn
		case "error":
			level = slog.LevelError
		}
		component.GuestLog(st.ctx, st.env.Logger(), st.out.Gate, &st.logged, level, msg)
		return nil
	}
	return fail(fmt.Errorf("unknown aios:sdk host function %d", id))
}

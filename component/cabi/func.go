package cabi

import (
	"fmt"

	"github.com/aios-host/aios-host/wit"
)

// Func is a WIT function compiled for the Canonical ABI: the compiled types
// of its parameters and result, and its core signature.
type Func struct {
	W      *wit.Func
	Params []*Type
	Result *Type // nil when the function returns nothing

	params       *Type // the parameters as a tuple, for spilling
	flatParams   []CoreType
	spillParams  bool
	flatResults  []CoreType
	spillResults bool
}

// NewFunc compiles f with c.
func NewFunc(c *Compiler, f *wit.Func) (*Func, error) {
	fn := &Func{W: f}
	tuple := &Type{Kind: wit.KindTuple, Align: 1}
	var s uint64
	for _, p := range f.Params {
		t, err := c.Compile(p.Type)
		if err != nil {
			return nil, fmt.Errorf("function %s parameter %s: %w", f.Name, p.Name, err)
		}
		fn.Params = append(fn.Params, t)
		s = alignTo64(s, t.Align)
		tuple.offsets = append(tuple.offsets, uint32(s))
		s += uint64(t.Size)
		tuple.Align = max(tuple.Align, t.Align)
		tuple.fields = append(tuple.fields, t)
		tuple.Flat = appendFlat(tuple.Flat, t.Flat)
	}
	if s >= maxTypeSize {
		return nil, fmt.Errorf("function %s: parameters too large", f.Name)
	}
	tuple.Size = uint32(alignTo64(s, tuple.Align))
	fn.params = tuple
	fn.flatParams = tuple.Flat
	if len(fn.flatParams) > MaxFlatParams {
		fn.spillParams = true
	}
	if f.Result != nil {
		t, err := c.Compile(f.Result)
		if err != nil {
			return nil, fmt.Errorf("function %s result: %w", f.Name, err)
		}
		fn.Result = t
		fn.flatResults = t.Flat
		if len(t.Flat) > MaxFlatResults {
			fn.spillResults = true
		}
	}
	return fn, nil
}

// Needs reports the canonical options a lift (lower false) or a lower of
// f requires (canonopt validation): memory when a string or list is in
// its type or its parameters or result spill to memory; realloc, for a
// lift, when its parameters hold strings or lists or spill (the caller
// copies them into the callee's memory), for a lower when its result
// holds strings or lists (the callee copies them into the caller's).
func (f *Func) Needs(lower bool) (memory, realloc bool) {
	var params bool
	for _, t := range f.Params {
		params = params || t.ptrs
	}
	result := f.Result != nil && f.Result.ptrs
	memory = params || result || f.spillParams || f.spillResults
	if lower {
		return memory, result
	}
	return memory, params || f.spillParams
}

// CoreSignature returns the core function type: for "lift" (a guest export
// the host calls) or "lower" (a host import the guest calls).
func (f *Func) CoreSignature(lower bool) (params, results []CoreType) {
	if f.spillParams {
		params = []CoreType{I32}
	} else {
		params = append(params, f.flatParams...)
	}
	switch {
	case !f.spillResults:
		results = append(results, f.flatResults...)
	case lower:
		params = append(params, I32)
	default:
		results = []CoreType{I32}
	}
	return params, results
}

// LowerArgs lowers args for a call into a guest export (canon lift) and
// appends the core arguments to out. Spilled parameters are stored in memory
// allocated with realloc.
func (f *Func) LowerArgs(cx *Context, args []wit.Value, out []uint64) ([]uint64, error) {
	if len(args) != len(f.Params) {
		return out, badValue("function %s takes %d arguments, got %d", f.W.Name, len(f.Params), len(args))
	}
	if f.spillParams {
		p, err := cx.allocate(f.params.Align, f.params.Size)
		if err != nil {
			return out, err
		}
		for i, t := range f.Params {
			if err := cx.store(t, args[i], p+f.params.offsets[i]); err != nil {
				return out, at(err, f.W.Params[i].Name)
			}
		}
		return append(out, uint64(p)), nil
	}
	var err error
	for i, t := range f.Params {
		if out, err = cx.lowerFlat(t, args[i], out); err != nil {
			return out, at(err, f.W.Params[i].Name)
		}
	}
	return out, nil
}

// LiftResult lifts the result of a guest export from its core results. It
// returns nil for a function without result.
func (f *Func) LiftResult(cx *Context, flat []uint64) (wit.Value, error) {
	if f.Result == nil {
		return nil, nil
	}
	if f.spillResults {
		if len(flat) != 1 {
			return nil, trapf("function %s returned %d core values, want 1 pointer", f.W.Name, len(flat))
		}
		v, err := cx.Load(f.Result, uint32(flat[0]))
		if err != nil {
			return nil, at(err, "result")
		}
		return v, nil
	}
	it := flatIter{vals: flat}
	v, err := cx.liftFlat(f.Result, &it)
	if err != nil {
		return nil, at(err, "result")
	}
	return v, nil
}

// LiftArgs lifts the arguments of a call from a guest into a host import
// (canon lower).
func (f *Func) LiftArgs(cx *Context, flat []uint64) ([]wit.Value, error) {
	out := make([]wit.Value, len(f.Params))
	if f.spillParams {
		if len(flat) < 1 {
			return nil, trapf("function %s: missing parameter pointer", f.W.Name)
		}
		p := uint32(flat[0])
		if p%f.params.Align != 0 {
			return nil, trapf("parameter pointer %d is not aligned to %d", p, f.params.Align)
		}
		b, err := cx.read(p, f.params.Size)
		if err != nil {
			return nil, at(err, "params")
		}
		for i, t := range f.Params {
			off := f.params.offsets[i]
			v, err := cx.decode(t, b[off:off+t.Size])
			if err != nil {
				return nil, at(err, f.W.Params[i].Name)
			}
			out[i] = v
		}
		return out, nil
	}
	it := flatIter{vals: flat}
	for i, t := range f.Params {
		v, err := cx.liftFlat(t, &it)
		if err != nil {
			return nil, at(err, f.W.Params[i].Name)
		}
		out[i] = v
	}
	return out, nil
}

// LowerResult lowers the result v of a host import back to the guest. flat
// are the call's core arguments (the last is the return pointer when the
// result spills); the core results are appended to out.
func (f *Func) LowerResult(cx *Context, v wit.Value, flat []uint64, out []uint64) ([]uint64, error) {
	if f.Result == nil {
		return out, nil
	}
	if f.spillResults {
		if len(flat) == 0 {
			return out, trapf("function %s: missing return pointer", f.W.Name)
		}
		if err := cx.Store(f.Result, v, uint32(flat[len(flat)-1])); err != nil {
			return out, at(err, "result")
		}
		return out, nil
	}
	out, err := cx.lowerFlat(f.Result, v, out)
	if err != nil {
		return out, at(err, "result")
	}
	return out, nil
}

// SpillsResult reports whether the result is returned through memory.
func (f *Func) SpillsResult() bool { return f.spillResults }

//go:build wasip1

package aios

import "unsafe"

// pinned keeps buffers handed to the host alive (Go's GC does not move
// objects, so an address stays valid while the slice is referenced).
var pinned = map[uint32][]byte{}

//go:wasmexport aios_abi_version
func aiosABIVersion() int32 { return ABIVersion }

//go:wasmexport aios_alloc
func aiosAlloc(n int32) int32 {
	if n < 0 {
		return 0
	}
	b := make([]byte, max(n, 1))
	p := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	pinned[p] = b
	return int32(p)
}

//go:wasmexport aios_free
func aiosFree(ptr, n int32) { delete(pinned, uint32(ptr)) }

var registerMsg []byte

//go:wasmexport aios_register
func aiosRegister() int64 {
	registerMsg = registerMessage()
	return pack(registerMsg)
}

//go:wasmexport aios_call
func aiosCall(ptr, n int32) int64 {
	return pack(serve(guestBytes(uint32(ptr), uint32(n))))
}

func pack(b []byte) int64 {
	if len(b) == 0 {
		return 0
	}
	return int64(uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))<<32 | uint64(len(b)))
}

// guestBytes returns the call buffer, which the ABI says the host got from
// aios_alloc.
func guestBytes(ptr, n uint32) []byte {
	b := pinned[ptr]
	if uint32(len(b)) < n {
		return nil
	}
	return b[:n]
}

//go:wasmimport aios call_tool
func importCallTool(ptr, n uint32) uint64

//go:wasmimport aios space_read
func importSpaceRead(ptr, n uint32) uint64

//go:wasmimport aios space_write
func importSpaceWrite(ptr, n uint32) uint64

//go:wasmimport aios ai_complete
func importComplete(ptr, n uint32) uint64

//go:wasmimport aios log
func importLog(level, ptr, n uint32)

func hostRequest(op int, req []byte) ([]byte, error) {
	p := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(req))))
	var r uint64
	switch op {
	case opCallTool:
		r = importCallTool(p, uint32(len(req)))
	case opSpaceRead:
		r = importSpaceRead(p, uint32(len(req)))
	case opSpaceWrite:
		r = importSpaceWrite(p, uint32(len(req)))
	case opComplete:
		r = importComplete(p, uint32(len(req)))
	}
	if r == 0 {
		return nil, Errorf(Internal, "the host could not deliver its answer (allocation failed)")
	}
	rp, rn := uint32(r>>32), uint32(r)
	buf, ok := pinned[rp]
	if !ok || uint32(len(buf)) < rn {
		return nil, Errorf(Internal, "the host answered at %d, which aios_alloc did not hand out", rp)
	}
	delete(pinned, rp)
	return buf[:rn], nil
}

func hostLog(level int, msg string) {
	if msg == "" {
		return
	}
	b := unsafe.StringData(msg)
	importLog(uint32(level), uint32(uintptr(unsafe.Pointer(b))), uint32(len(msg)))
}

package cabi

import (
	"errors"
	"fmt"
	"strings"
)

// Memory is a guest's linear memory. wazero's api.Memory satisfies it.
type Memory interface {
	// Read returns n bytes at offset, or false when out of range. The slice
	// may alias the memory and is valid until the guest runs again.
	Read(offset, n uint32) ([]byte, bool)
	// Write copies b to offset, or returns false when out of range.
	Write(offset uint32, b []byte) bool
	// Size is the current size in bytes.
	Size() uint32
}

// Realloc is the guest's cabi_realloc(old, old_size, align, new_size).
type Realloc func(old, oldSize, align, newSize uint32) (uint32, error)

// StringEncoding is a canonical option.
type StringEncoding uint8

// String encodings.
const (
	UTF8 StringEncoding = iota
	UTF16
	Latin1UTF16
)

func (e StringEncoding) String() string {
	switch e {
	case UTF8:
		return "utf8"
	case UTF16:
		return "utf16"
	case Latin1UTF16:
		return "latin1+utf16"
	}
	return "?"
}

// DefaultLiftBudget bounds the bytes one lift may read (strings and list
// elements), so a guest cannot make the host allocate without bound by
// pointing many list elements at the same memory.
const DefaultLiftBudget = 256 << 20

// Context carries the canonical options of one lift or lower: the memory,
// realloc and string encoding. A Context is used by one call at a time.
type Context struct {
	Mem      Memory
	Realloc  Realloc
	Encoding StringEncoding
	// Budget is the number of bytes lifting may still read; Reset sets it to
	// DefaultLiftBudget when zero.
	Budget int64

	scratch [8]byte
	units   []uint16
}

// Reset prepares cx for a new call.
func (cx *Context) Reset() { cx.Budget = DefaultLiftBudget }

// Error is a Canonical ABI failure: a trap caused by guest data (Trap true)
// or a host value that does not fit its type (Trap false).
type Error struct {
	Path string // where in the value, e.g. "params.tags[3]"
	Msg  string
	Trap bool
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// IsTrap reports whether err is a Canonical ABI trap caused by guest data.
func IsTrap(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Trap
}

func trapf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Trap: true}
}

func badValue(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// at prefixes err's path with seg (".field" or "[i]").
func at(err error, seg string) error {
	var e *Error
	if errors.As(err, &e) {
		p := seg
		if e.Path != "" {
			if strings.HasPrefix(e.Path, "[") || strings.HasPrefix(e.Path, ".") {
				p = seg + e.Path
			} else {
				p = seg + "." + e.Path
			}
		}
		return &Error{Path: p, Msg: e.Msg, Trap: e.Trap}
	}
	return fmt.Errorf("%s: %w", seg, err)
}

func (cx *Context) spend(n uint64) error {
	cx.Budget -= int64(n)
	if cx.Budget < 0 {
		return trapf("value larger than the lift budget of %d bytes", DefaultLiftBudget)
	}
	return nil
}

func (cx *Context) read(ptr, n uint32) ([]byte, error) {
	if cx.Mem == nil {
		return nil, trapf("no memory for a value that needs one")
	}
	if uint64(ptr)+uint64(n) > uint64(cx.Mem.Size()) {
		return nil, trapf("range [%d, %d) out of bounds of memory of %d bytes", ptr, uint64(ptr)+uint64(n), cx.Mem.Size())
	}
	b, ok := cx.Mem.Read(ptr, n)
	if !ok {
		return nil, trapf("range [%d, %d) out of bounds of memory", ptr, uint64(ptr)+uint64(n))
	}
	return b, nil
}

func (cx *Context) write(ptr uint32, b []byte) error {
	if cx.Mem == nil {
		return trapf("no memory for a value that needs one")
	}
	if !cx.Mem.Write(ptr, b) {
		return trapf("write of %d bytes at %d out of bounds of memory of %d bytes", len(b), ptr, cx.Mem.Size())
	}
	return nil
}

var errNoMemory = &Error{Msg: "no memory for a value that needs one", Trap: true}

func (cx *Context) allocate(align, size uint32) (uint32, error) {
	if cx.Realloc == nil {
		return 0, trapf("value needs cabi_realloc but the function has no realloc option")
	}
	if cx.Mem == nil {
		return 0, errNoMemory
	}
	p, err := cx.Realloc(0, 0, align, size)
	if err != nil {
		return 0, err
	}
	if p%align != 0 {
		return 0, trapf("realloc returned %d, not aligned to %d", p, align)
	}
	if uint64(p)+uint64(size) > uint64(cx.Mem.Size()) {
		return 0, trapf("realloc returned [%d, %d), out of bounds of memory of %d bytes", p, uint64(p)+uint64(size), cx.Mem.Size())
	}
	return p, nil
}

func (cx *Context) reallocate(old, oldSize, align, size uint32) (uint32, error) {
	if cx.Realloc == nil || cx.Mem == nil {
		return 0, errNoMemory
	}
	p, err := cx.Realloc(old, oldSize, align, size)
	if err != nil {
		return 0, err
	}
	if p%align != 0 {
		return 0, trapf("realloc returned %d, not aligned to %d", p, align)
	}
	if uint64(p)+uint64(size) > uint64(cx.Mem.Size()) {
		return 0, trapf("realloc returned [%d, %d), out of bounds of memory", p, uint64(p)+uint64(size))
	}
	return p, nil
}

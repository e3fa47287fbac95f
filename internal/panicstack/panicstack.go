// Package panicstack formats the stack of a recovered panic the way every Go
// tool's callers see it, whether the tool runs in the host (runtimes/native)
// or in a WASM guest built with the Go SDK (guest/go): the frames from the
// panicking function outward, the runtime's frames left out, at most
// MaxFrames, each as its function and file:line, the file named by its
// package path and base name as `go build -trimpath` would name it (never
// the build machine's home folder or GOROOT). It imports only the standard
// library's runtime, strings, path and strconv, so a guest can carry it.
package panicstack

import (
	"path"
	"runtime"
	"strconv"
	"strings"
)

// MaxFrames bounds the frames reported with a panic.
const MaxFrames = 12

// Format formats the stack of the goroutine that is panicking, from the
// deferred function that recovered: skip is runtime.Callers' skip for the
// caller's own frames (the caller's recover and Format's caller). Frames
// before runtime.gopanic are the deferred code's and are left out; after it,
// own(function) says whether a frame belongs to the code that ran the tool:
// skip leaves it out, stop ends the stack there (the tool's caller).
func Format(skip int, own func(function string) (skipFrame, stop bool)) string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(skip+2, pcs) // past Callers and Format
	frames := runtime.CallersFrames(pcs[:n])
	var sb strings.Builder
	afterPanic, count := false, 0
	for {
		f, more := frames.Next()
		switch {
		case !afterPanic:
			afterPanic = f.Function == "runtime.gopanic"
		case strings.HasPrefix(f.Function, "runtime."):
		default:
			skipFrame, stop := own(f.Function)
			if stop {
				more = false
			} else if !skipFrame && count < MaxFrames {
				count++
				sb.WriteString(f.Function)
				sb.WriteString("\n\t")
				sb.WriteString(FramePath(f.Function, f.File))
				sb.WriteByte(':')
				sb.WriteString(strconv.Itoa(f.Line))
				sb.WriteByte('\n')
			}
		}
		if !more {
			break
		}
	}
	return sb.String()
}

// FramePath names a frame's file as `go build -trimpath` does, by its
// package path and base name (example.com/tools/resize.go); package main's
// files, and a function whose package cannot be told, by the base name
// alone. A file that is no absolute path (built with -trimpath already) is
// kept as it is. Slashes and backslashes both count, and a Windows drive
// letter makes a path absolute, whatever the machine reading the stack.
func FramePath(function, file string) string {
	file = strings.ReplaceAll(file, "\\", "/")
	if !strings.HasPrefix(file, "/") && !(len(file) > 2 && file[1] == ':' && file[2] == '/') {
		return file
	}
	base := path.Base(file)
	fn := function
	if i := strings.IndexByte(fn, '['); i >= 0 { // type arguments may hold slashes
		fn = fn[:i]
	}
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 || fn[:slash+1+dot] == "main" {
		return base
	}
	return fn[:slash+1+dot] + "/" + base
}

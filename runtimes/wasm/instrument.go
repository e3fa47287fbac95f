package wasm

import instr "github.com/aios-host/aios-host/runtimes/wasm/instrument"

// Interruption by instrumentation: the rewrite lives in the package
// runtimes/wasm/instrument (shared with the component runtime), which
// explains the mechanism and its cost. This runtime provides the tick
// import (hostmod.go) and zeroes the $tick global of an overdue call
// (watchdog.go).

// The names the instrumentation adds.
const (
	tickExport = instr.TickExport // the exported $tick global
	tickImport = instr.TickImport // the aios.tick host import
	tickBudget = instr.Budget     // loop iterations between calls into Go
)

// instrument returns bin with the tick global, the aios.tick import and the
// loop checks added.
func instrument(bin []byte) ([]byte, error) { return instr.Module(bin) }

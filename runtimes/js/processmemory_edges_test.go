package js

import (
	"strings"
	"testing"
)

// TestProcessMemoryTooSmallRefused: runtimes.js.process_memory_mib: 10 was
// taken, and every unsigned JS/TS provider then failed to load, its worker
// dying in the Go runtime ("fatal error: runtime: cannot allocate memory")
// with a stack dump of some fifty log lines per provider and no word of the
// key. Now a value below MinProcessMemoryMiB is refused naming the key; 0
// (the default) and the floor itself are taken.
func TestProcessMemoryTooSmallRefused(t *testing.T) {
	for _, mib := range []int{1, 10, MinProcessMemoryMiB - 1} {
		err := (Config{ProcessMemoryMiB: mib}).Validate()
		if err == nil || !strings.HasPrefix(err.Error(), "runtimes.js.process_memory_mib:") || !strings.Contains(err.Error(), "needs") {
			t.Errorf("process_memory_mib %d: %v, want an error naming the key and the floor", mib, err)
		}
	}
	for _, mib := range []int{0, MinProcessMemoryMiB, 1024} {
		if err := (Config{ProcessMemoryMiB: mib}).Validate(); err != nil {
			t.Errorf("process_memory_mib %d: %v", mib, err)
		}
	}
}

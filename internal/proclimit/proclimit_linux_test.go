//go:build linux

package proclimit

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

const childEnv = "PROCLIMIT_TEST_CHILD"

// TestMain lets the test binary act as the limited process: it sets a
// 128 MiB limit, reports it, then allocates 1 GiB, which must fail.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := LimitData(128 << 20); err != nil {
			os.Stderr.WriteString("LimitData: " + err.Error() + "\n")
			os.Exit(2)
		}
		var lim syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &lim); err != nil || lim.Cur == ^uint64(0) {
			os.Exit(3)
		}
		os.Stdout.WriteString("limited\n")
		b := make([]byte, 1<<30)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		os.Stdout.WriteString("allocated\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestVMData(t *testing.T) {
	n, err := vmData()
	if err != nil {
		t.Fatal(err)
	}
	if n < 1<<20 {
		t.Fatalf("VmData = %d bytes, want at least 1 MiB for a Go process", n)
	}
}

func TestLimitDataStopsAllocation(t *testing.T) {
	if Race {
		t.Skip("the race detector's shadow memory fails under the limit")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.Output()
	if !strings.Contains(string(out), "limited\n") {
		t.Fatalf("the child did not set its limit: %v, output %q", err, out)
	}
	if err == nil || strings.Contains(string(out), "allocated") {
		t.Fatalf("the child allocated 1 GiB under a 128 MiB limit: %v, output %q", err, out)
	}
	// The Go runtime dies in more than one way when an allocation fails
	// ("out of memory", "cannot allocate memory", even a fault in the
	// collector): what matters is that it died there.
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("the child did not die at the allocation: %v", err)
	}
}

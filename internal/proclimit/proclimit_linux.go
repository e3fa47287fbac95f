//go:build linux

// Package proclimit bounds the memory and the output of a helper process
// the host starts from its own executable (the JS bundler and workers, the
// WASM compiler).
package proclimit

import (
	"bufio"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
)

// LimitData sets RLIMIT_DATA to what the process maps for data now plus
// extra bytes. RLIMIT_DATA, not RLIMIT_AS: the Go runtime reserves far more
// address space than it uses (a 1 GiB RLIMIT_AS fails the first 100 MiB
// allocation), but reservations are not data until they are used. The
// current size is added because the race detector's shadow memory is
// already mapped when the process starts. A confined process cannot read
// /proc (outside race builds): it counts what the Go runtime has mapped,
// plus 64 MiB for threads and the C library.
func LimitData(extra int64) error {
	cur, err := vmData()
	if err != nil {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return err
		}
		cur = s[0].Value.Uint64() + 64<<20
	}
	lim := cur + uint64(extra)
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: lim, Max: lim})
}

// vmData reads VmData from /proc/self/status, in bytes.
func vmData() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmData:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, err
			}
			return n << 10, nil
		}
	}
	return 0, os.ErrNotExist
}

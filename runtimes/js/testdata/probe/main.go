// Command probe stands in for a JS worker in TestProcessIsolationConfined:
// started as a worker is, it tries what a confined worker must not be able
// to do and reports each outcome on stderr.
package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// addr is a TCP address to dial, set with -ldflags "-X main.addr=…" (the
// worker's environment is not inherited).
var addr string

func report(what string, err error) {
	if err == nil {
		fmt.Fprintf(os.Stderr, "PROBE %s: allowed\n", what)
	} else {
		fmt.Fprintf(os.Stderr, "PROBE %s: %v\n", what, err)
	}
}

func main() {
	_, err := os.ReadFile("/etc/hostname")
	report("read /etc/hostname", err)
	_, err = os.ReadDir(os.TempDir())
	report("list the temp folder", err)
	err = os.WriteFile(filepath.Join(os.TempDir(), "aios-probe-"+strconv.Itoa(os.Getpid())), []byte("x"), 0o600)
	report("write a temp file", err)
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if c != nil {
		c.Close()
	}
	report("dial tcp", err)
	_, err = os.ReadFile("/proc/self/status")
	report("read /proc/self/status", err)
	os.Exit(3)
}

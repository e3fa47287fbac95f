package discovery

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"time"
)

const (
	// versionCmdTimeout bounds `EXECUTABLE --version`.
	versionCmdTimeout = 2 * time.Second
	// maxVersionOutput is how much of its output is read.
	maxVersionOutput = 4 << 10
)

// versionInOutput finds the first dotted version in a program's --version
// output ("Mozilla Firefox 115.5.0esr" → 115.5.0esr).
var versionInOutput = regexp.MustCompile(`(?:^|[^0-9A-Za-z.])(\d+(?:\.\d+)+[0-9A-Za-z.~+]*)`)

// VersionFromOutput returns the version a --version output names, or "".
func VersionFromOutput(out []byte) string {
	m := versionInOutput.FindSubmatch(out)
	if m == nil {
		return ""
	}
	v := string(bytes.TrimRight(m[1], ".+~"))
	if _, err := ParseDebVersion(v); err != nil {
		return ""
	}
	return v
}

// cappedBuffer keeps the first max bytes written to it and drops the rest.
type cappedBuffer struct {
	buf bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	return len(p), nil
}

var (
	versionCmdMu    sync.Mutex
	versionCmdCache = map[string]versionCmdResult{}
)

type versionCmdResult struct {
	stamp   string
	version string
	err     error
}

// versionSafeExecutable says why exe may not be run for its version: it
// must be a regular file owned by root or by this process's user, and
// writable by nobody else (a file any other account could have replaced
// is not run), as must the folder that holds it.
func versionSafeExecutable(exe string) error {
	st, err := os.Stat(exe)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", exe)
	}
	return ownedSafely(exe, st)
}

// runVersion runs `exe --version` — no shell, an empty environment, stdin
// empty, its own process group killed after versionCmdTimeout, output
// capped at maxVersionOutput — and reads a version from its output. The
// answer is kept while the file's size and time stay the same.
func runVersion(exe string) (string, error) {
	if err := versionSafeExecutable(exe); err != nil {
		return "", err
	}
	st, err := os.Stat(exe)
	if err != nil {
		return "", err
	}
	stamp := fmt.Sprintf("%d/%d", st.Size(), st.ModTime().UnixNano())
	versionCmdMu.Lock()
	if r, ok := versionCmdCache[exe]; ok && r.stamp == stamp {
		versionCmdMu.Unlock()
		return r.version, r.err
	}
	versionCmdMu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), versionCmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "--version")
	cmd.Env = []string{}
	cmd.Dir = "/"
	out := &cappedBuffer{max: maxVersionOutput}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 500 * time.Millisecond
	setProcessGroup(cmd)
	runErr := cmd.Run()
	var r versionCmdResult
	r.stamp = stamp
	switch {
	case ctx.Err() != nil:
		r.err = fmt.Errorf("%s --version did not finish within %v", exe, versionCmdTimeout)
	default:
		if r.version = VersionFromOutput(out.buf.Bytes()); r.version == "" {
			if runErr != nil {
				r.err = fmt.Errorf("%s --version: %v", exe, runErr)
			} else {
				r.err = fmt.Errorf("%s --version printed no version", exe)
			}
		}
	}
	versionCmdMu.Lock()
	versionCmdCache[exe] = r
	versionCmdMu.Unlock()
	return r.version, r.err
}

//go:build linux

package js

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWorkerCannotChangeFileMetadata: a JS worker writes no file, and
// Landlock governs a file's contents and names, not its mode, owner, times
// or extended attributes; a worker runs as the host's user, so its seccomp
// filter (confineSelf) must refuse chmod, chown, utime and xattr calls as
// the Python workers' does. A copy of the test binary confines itself as a
// worker does and tries them on a file of the test's.
func TestWorkerCannotChangeFileMetadata(t *testing.T) {
	if f := os.Getenv("AIOS_JS_CONFINE_HELPER"); f != "" {
		confineHelper(f)
		return
	}
	f := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerCannotChangeFileMetadata$")
	cmd.Env = append(os.Environ(), "AIOS_JS_CONFINE_HELPER="+f)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "SKIP ") {
		t.Skip(string(out))
	}
	for _, what := range []string{"chmod", "chtimes", "setxattr"} {
		refused := false
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, what+": ") {
				refused = strings.HasSuffix(line, "operation not permitted")
			}
		}
		if !refused {
			t.Errorf("%s: want operation not permitted; the helper said:\n%s", what, out)
		}
	}
	if st, err := os.Stat(f); err != nil {
		t.Fatal(err)
	} else if st.Mode().Perm() != 0o600 {
		t.Errorf("the confined helper changed the file's mode to %v", st.Mode().Perm())
	}
}

func confineHelper(f string) {
	if err := confineSelf(); err != nil {
		fmt.Println("SKIP confineSelf:", err)
		return
	}
	res := func(what string, err error) {
		if err == nil {
			fmt.Printf("%s: ok\n", what)
		} else {
			fmt.Printf("%s: %v\n", what, err)
		}
	}
	res("chmod", os.Chmod(f, 0o777))
	res("chtimes", os.Chtimes(f, time.Unix(0, 0), time.Unix(0, 0)))
	res("setxattr", unix.Setxattr(f, "user.aios", []byte("x"), 0))
}

//go:build linux

package python

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Control groups put a worker and every process it forks under limits
// that hold for them together: a task count (pids.max: a fork bomb stops
// there), the memory of the whole tree (RLIMIT_AS bounds each process
// alone), a CPU share; and they let the host kill every process of the
// tree when the worker ends, even one that left its process group
// without a PID namespace. The host makes one folder of its own
// (aios-host-NS-PID) under its cgroup in each hierarchy it needs, and one per
// worker below it; the worker is moved in before its start gate opens, so
// nothing it runs is ever outside. cgroup v2 is used when the host's
// cgroup offers the pids and memory controllers to children; else the v1
// hierarchies of pids, memory and (if mounted) cpu and cpuacct. Nothing is written
// outside these folders. A library (containerd/cgroups, opencontainers'
// cgroups) would bring systemd, D-Bus and eBPF dependencies for the few
// files written here.

// cgroups is the host's parent folder for workers in each hierarchy.
type cgroups struct {
	v2      bool
	parents map[string]string // controller (v1) or "" (v2) → the host's folder
	seq     atomic.Uint64
	enable  string // v2: the controllers the host's folder hands its children
}

var (
	cgOnce sync.Once
	cgHost *cgroups
	cgErr  error
)

// hostCgroups makes (once a process) the host's folders for workers.
func hostCgroups() (*cgroups, error) {
	cgOnce.Do(func() {
		cgHost, cgErr = setupCgroups()
		cgMade.Store(cgHost)
	})
	return cgHost, cgErr
}

// cgMount is one mounted cgroup hierarchy.
type cgMount struct {
	point, root string
	v2          bool
	controllers []string // v1: the mount's controllers
}

// parseMountinfo finds the cgroup mounts in /proc/self/mountinfo's text.
func parseMountinfo(text string) []cgMount {
	var out []cgMount
	for _, line := range strings.Split(text, "\n") {
		// id parent major:minor root point options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 1 {
			continue
		}
		m := cgMount{root: unescapeMount(f[3]), point: unescapeMount(f[4])}
		switch g[0] {
		case "cgroup2":
			m.v2 = true
		case "cgroup":
			if len(g) < 3 {
				continue
			}
			for _, o := range strings.Split(g[2], ",") {
				switch o {
				case "pids", "memory", "cpu", "cpuacct":
					m.controllers = append(m.controllers, o)
				}
			}
			if len(m.controllers) == 0 {
				continue
			}
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseProcCgroup reads /proc/self/cgroup's text: the process's path in
// each v1 controller's hierarchy, and in v2 ("" key).
func parseProcCgroup(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out
}

// own is the folder of the process's cgroup path p in mount m ("" when p
// is not below the mount's root: another namespace's cgroup).
func own(m cgMount, p string) string {
	rel, err := filepath.Rel(m.root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return filepath.Join(m.point, rel)
}

func setupCgroups() (*cgroups, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	pc, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	mounts, paths := parseMountinfo(string(mi)), parseProcCgroup(string(pc))
	name := hostFolder(pidNS(), os.Getpid())
	var v2why string
	for _, m := range mounts {
		if !m.v2 {
			continue
		}
		p, ok := paths[""]
		dir := own(m, p)
		if !ok || dir == "" {
			continue
		}
		if c, err := setupV2(dir, name); err == nil {
			return c, nil
		} else {
			v2why = err.Error()
		}
	}
	// Each controller's folder (co-mounted controllers share one), the
	// leftovers of dead hosts cleared before the host makes its own.
	dirs := map[string]string{}
	for _, want := range []string{"pids", "memory", "cpu", "cpuacct"} {
		for _, m := range mounts {
			if m.v2 || !slices.Contains(m.controllers, want) || dirs[want] != "" {
				continue
			}
			if dir := own(m, paths[want]); dir != "" {
				dirs[want] = dir
			}
		}
	}
	if dirs["pids"] == "" || dirs["memory"] == "" {
		return nil, cgroupErr(v2why, errors.New("no cgroup v1 pids and memory hierarchies"))
	}
	c := &cgroups{parents: map[string]string{}}
	made := map[string]bool{}
	for _, want := range []string{"pids", "memory", "cpu", "cpuacct"} {
		dir := dirs[want]
		if dir == "" {
			continue
		}
		parent := filepath.Join(dir, name)
		if !made[parent] {
			removeStale(dir, false)
			if err := os.Mkdir(parent, 0o700); err != nil {
				if want == "cpuacct" {
					continue // it only counts: the tree's CPU is then the worker's own
				}
				c.removeParents()
				return nil, cgroupErr(v2why, fmt.Errorf("cgroup v1 %s: %v", want, err))
			}
			made[parent] = true
			ownFolders[parent] = true
		}
		c.parents[want] = parent
	}
	return c, nil
}

func cgroupErr(v2why string, err error) error {
	if v2why != "" {
		return fmt.Errorf("%v; %v", v2why, err)
	}
	return err
}

func setupV2(dir, name string) (*cgroups, error) {
	ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return nil, fmt.Errorf("cgroup v2 %s: %v", dir, err)
	}
	have := strings.Fields(string(ctl))
	if !slices.Contains(have, "pids") || !slices.Contains(have, "memory") {
		return nil, fmt.Errorf("cgroup v2 %s offers %q, not pids and memory", dir, strings.TrimSpace(string(ctl)))
	}
	enable := "+pids +memory"
	if slices.Contains(have, "cpu") {
		enable += " +cpu"
	}
	// Controllers reach a child only through its parent's subtree_control,
	// which a cgroup holding processes (the host's own) cannot set unless
	// it is the root: a delegated cgroup (systemd Delegate=yes) has them
	// set already.
	if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte(enable), 0); err != nil {
		return nil, fmt.Errorf("cgroup v2 %s: enabling %s for children: %v (the host's cgroup holds processes; run it in a delegated cgroup)", dir, enable, err)
	}
	removeStale(dir, true)
	parent := filepath.Join(dir, name)
	if err := os.Mkdir(parent, 0o700); err != nil {
		return nil, fmt.Errorf("cgroup v2 %s: %v", parent, err)
	}
	if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte(enable), 0); err != nil {
		_ = os.Remove(parent)
		return nil, fmt.Errorf("cgroup v2 %s: enabling %s: %v", parent, enable, err)
	}
	ownFolders[parent] = true
	return &cgroups{v2: true, parents: map[string]string{"": parent}, enable: enable}, nil
}

// ownFolders are the folders this host made (written while setting up,
// under cgOnce).
var ownFolders = map[string]bool{}

// pidNS is the inode of this process's PID namespace (0: unknown). A
// host's folder is named for its namespace and PID: a PID alone names
// no process for sure outside its namespace.
func pidNS() uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/pid", &st) != nil {
		return 0
	}
	return st.Ino
}

// hostFolder is the name of the folder of the host with pid in PID
// namespace ns.
func hostFolder(ns uint64, pid int) string {
	return "aios-host-" + strconv.FormatUint(ns, 10) + "-" + strconv.Itoa(pid)
}

// removeStale clears the folders of hosts that are gone. A folder of a
// host of this PID namespace whose PID is free (or is this process's,
// before the host made its own: an earlier host's) is stale: what runs
// in its workers' groups (the orphans of a host that died without a PID
// namespace) is killed and the folders removed. A folder of another
// namespace, or of the older name without one, may be a live host's: it
// is removed only when empty, nothing is killed.
func removeStale(dir string, v2 bool) {
	ns := pidNS()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "aios-host-")
		if !ok || !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if ownFolders[path] {
			continue
		}
		dead := false
		if nsPart, pidPart, two := strings.Cut(rest, "-"); two && ns != 0 {
			fns, err1 := strconv.ParseUint(nsPart, 10, 64)
			pid, err2 := strconv.Atoi(pidPart)
			if err1 == nil && err2 == nil && fns == ns && pid > 0 {
				dead = pid == os.Getpid() || errors.Is(unix.Kill(pid, 0), unix.ESRCH)
				if !dead {
					// A live host of this namespace (a `run` beside an
					// `mcp` session): not even its empty folders are
					// removed — it makes its workers' groups in them.
					continue
				}
			}
		}
		kids, _ := os.ReadDir(path)
		for _, k := range kids {
			if !k.IsDir() {
				continue
			}
			wc := &workerCgroup{v2: v2, dirs: []string{filepath.Join(path, k.Name())}}
			if !dead {
				wc.removeNow() // only if empty
				continue
			}
			wc.kill()
			for i := 0; i < 50 && !wc.removeNow(); i++ {
				time.Sleep(10 * time.Millisecond)
				wc.kill()
			}
		}
		_ = os.Remove(path)
	}
}

// remakeParent makes the host's folder parent again (v2: with its
// controllers handed to children).
func (c *cgroups) remakeParent(parent string) error {
	if err := os.Mkdir(parent, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if c.v2 && c.enable != "" {
		return os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte(c.enable), 0)
	}
	return nil
}

// cgMade is cgHost once it is set up (nil before): read without setting
// the folders up.
var cgMade atomic.Pointer[cgroups]

// removeHostFolders removes this process's folders (Runtime.Close) once
// the groups of its workers have gone (their removal may lag the reaping),
// trying until deadline; a folder still holding a group (a worker of
// another runtime of this process) is left.
func removeHostFolders(deadline time.Time) {
	c := cgMade.Load()
	if c == nil {
		return
	}
	for _, p := range c.parents {
		for {
			ents, err := os.ReadDir(p)
			if err != nil {
				break // gone
			}
			busy := false
			for _, e := range ents {
				busy = busy || e.IsDir()
			}
			if !busy {
				_ = os.Remove(p)
				break
			}
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func (c *cgroups) removeParents() {
	for _, p := range c.parents {
		_ = os.Remove(p)
	}
}

func (c *cgroups) version() string {
	if c.v2 {
		return "v2"
	}
	return "v1"
}

// workerCgroup is one worker's folders.
type workerCgroup struct {
	v2   bool
	dirs []string // each hierarchy's folder; dirs[0] lists the tasks
	// usage is the file that counts the CPU time of the whole tree, dead
	// processes included (v2 cpu.stat, v1 cpuacct.usage); "" if none.
	usage string
	once  sync.Once
}

// cgLimits are a worker tree's limits (0: none).
type cgLimits struct {
	tasks       int
	memoryBytes uint64
	cpus        float64
}

// newWorker makes a worker's folders with its limits.
func (c *cgroups) newWorker(l cgLimits) (*workerCgroup, error) {
	// The next name free in every hierarchy: a folder left by an earlier
	// host that had this PID may hold some (its processes were killed at
	// start-up, but a folder whose last process was not reaped yet stays).
	var name string
	for tries := 0; ; tries++ {
		name = "w" + strconv.FormatUint(c.seq.Add(1), 10)
		free := true
		for _, p := range c.parents {
			if _, err := os.Lstat(filepath.Join(p, name)); err == nil {
				free = false
			}
		}
		if free || tries == 1000 {
			break
		}
	}
	wc := &workerCgroup{v2: c.v2}
	mk := func(parent string) (string, error) {
		d := filepath.Join(parent, name)
		err := os.Mkdir(d, 0o700)
		if errors.Is(err, os.ErrNotExist) {
			// The host's folder was removed under it (another host
			// took it for stale while it was empty): make it again.
			if perr := c.remakeParent(parent); perr == nil {
				err = os.Mkdir(d, 0o700)
			}
		}
		if err != nil {
			return "", fmt.Errorf("cgroup %s: %v", d, err)
		}
		wc.dirs = append(wc.dirs, d)
		return d, nil
	}
	set := func(dir, file, v string) error {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0); err != nil {
			return fmt.Errorf("cgroup %s: %s=%s: %v", dir, file, v, err)
		}
		return nil
	}
	fail := func(err error) (*workerCgroup, error) {
		wc.removeNow()
		return nil, err
	}
	const period = 100000 // µs
	if c.v2 {
		d, err := mk(c.parents[""])
		if err != nil {
			return fail(err)
		}
		if l.tasks > 0 {
			if err := set(d, "pids.max", strconv.Itoa(l.tasks)); err != nil {
				return fail(err)
			}
		}
		if l.memoryBytes > 0 {
			if err := set(d, "memory.max", strconv.FormatUint(l.memoryBytes, 10)); err != nil {
				return fail(err)
			}
			if _, err := os.Stat(filepath.Join(d, "memory.swap.max")); err == nil {
				if err := set(d, "memory.swap.max", "0"); err != nil {
					return fail(err)
				}
			}
		}
		if _, err := os.Stat(filepath.Join(d, "cpu.stat")); err == nil {
			wc.usage = filepath.Join(d, "cpu.stat")
		}
		if l.cpus > 0 {
			if _, err := os.Stat(filepath.Join(d, "cpu.max")); err == nil {
				if err := set(d, "cpu.max", fmt.Sprintf("%d %d", int64(l.cpus*period), period)); err != nil {
					return fail(err)
				}
			}
		}
		return wc, nil
	}
	// v1: a folder in each hierarchy (one for controllers mounted
	// together), each controller's files in its own.
	dirOf := map[string]string{}
	for _, ctl := range []string{"pids", "memory", "cpu", "cpuacct"} {
		parent := c.parents[ctl]
		if parent == "" {
			continue
		}
		d := dirOf[parent]
		if d == "" {
			var err error
			if d, err = mk(parent); err != nil {
				return fail(err)
			}
			dirOf[parent] = d
		}
		var err error
		switch ctl {
		case "pids":
			if l.tasks > 0 {
				err = set(d, "pids.max", strconv.Itoa(l.tasks))
			}
		case "memory":
			if l.memoryBytes > 0 {
				v := strconv.FormatUint(l.memoryBytes, 10)
				err = set(d, "memory.limit_in_bytes", v)
				// Memory and swap together, so swap is no way around the limit.
				if _, serr := os.Stat(filepath.Join(d, "memory.memsw.limit_in_bytes")); err == nil && serr == nil {
					err = set(d, "memory.memsw.limit_in_bytes", v)
				}
			}
		case "cpuacct":
			if _, serr := os.Stat(filepath.Join(d, "cpuacct.usage")); serr == nil {
				wc.usage = filepath.Join(d, "cpuacct.usage")
			}
		case "cpu":
			if l.cpus > 0 {
				if err = set(d, "cpu.cfs_period_us", strconv.Itoa(period)); err == nil {
					err = set(d, "cpu.cfs_quota_us", strconv.FormatInt(int64(l.cpus*period), 10))
				}
			}
		}
		if err != nil {
			return fail(err)
		}
	}
	return wc, nil
}

// cpuUsed is the CPU time the worker's tree has used, every process it
// ever had counted (RLIMIT_CPU counts one process: a forked child starts
// at nothing); ok is false when the group does not say.
func (wc *workerCgroup) cpuUsed() (used time.Duration, ok bool) {
	if wc == nil || wc.usage == "" {
		return 0, false
	}
	b, err := os.ReadFile(wc.usage)
	if err != nil {
		return 0, false
	}
	if !wc.v2 {
		ns, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		return time.Duration(ns), err == nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(line, "usage_usec "); found {
			us, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return time.Duration(us) * time.Microsecond, err == nil
		}
	}
	return 0, false
}

// oomKills counts the processes of the worker's tree the kernel's OOM
// killer ended (v1 memory.oom_control, v2 memory.events: oom_kill); ok is
// false when the group does not say (no memory controller, an old kernel).
func (wc *workerCgroup) oomKills() (n int, ok bool) {
	if wc == nil {
		return 0, false
	}
	name := "memory.oom_control"
	if wc.v2 {
		name = "memory.events"
	}
	for _, d := range wc.dirs {
		b, err := os.ReadFile(filepath.Join(d, name))
		if err != nil {
			continue
		}
		for _, ln := range strings.Split(string(b), "\n") {
			if v, found := strings.CutPrefix(ln, "oom_kill "); found {
				if k, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					return k, true
				}
			}
		}
	}
	return 0, false
}

// add moves process pid (the worker, still at its start gate) in.
func (wc *workerCgroup) add(pid int) error {
	for _, d := range wc.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("cgroup %s: adding worker %d: %v", d, pid, err)
		}
	}
	return nil
}

// tasks lists the processes in the worker's tree.
func (wc *workerCgroup) tasks() []int {
	f, err := os.Open(filepath.Join(wc.dirs[0], "cgroup.procs"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if n, err := strconv.Atoi(strings.TrimSpace(sc.Text())); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// kill kills every process in the worker's tree. A process forks only
// into its cgroup, within pids.max, and (with Landlock: the worker cannot
// reach cgroupfs) cannot leave it, so a few rounds empty it.
func (wc *workerCgroup) kill() {
	if wc == nil || len(wc.dirs) == 0 {
		return
	}
	if wc.v2 && os.WriteFile(filepath.Join(wc.dirs[0], "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	for round := 0; round < 100; round++ {
		pids := wc.tasks()
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			_ = unix.Kill(p, unix.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// destroy kills what is left and removes the folders, once. A killed
// process leaves its cgroup only when it has been reaped (by the worker,
// its PID namespace's end, or init), so removal is retried for a while
// in the background.
func (wc *workerCgroup) destroy() {
	if wc == nil {
		return
	}
	wc.once.Do(func() {
		wc.kill()
		if wc.removeNow() {
			return
		}
		go func() {
			for i := 0; i < 50; i++ {
				time.Sleep(20 * time.Millisecond)
				wc.kill()
				if wc.removeNow() {
					return
				}
			}
		}()
	})
}

// removeNow removes the folders it can; true when all are gone.
func (wc *workerCgroup) removeNow() bool {
	ok := true
	for _, d := range wc.dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			ok = false
		}
	}
	return ok
}

//go:build linux

package python

import (
	"reflect"
	"testing"
)

const sampleMountinfo = `22 1 0:21 / / rw,relatime - ext4 /dev/vda rw
30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
32 30 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct
34 30 0:31 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
40 30 0:37 / /sys/fs/cgroup/uni\040fied rw,relatime - cgroup2 cgroup2 rw
garbage line
41 30 0:38 / /x rw - cgroup
`

func TestParseCgroupFiles(t *testing.T) {
	got := parseMountinfo(sampleMountinfo)
	want := []cgMount{
		{point: "/sys/fs/cgroup/cpu", root: "/", controllers: []string{"cpu"}},
		{point: "/sys/fs/cgroup/cpu,cpuacct", root: "/", controllers: []string{"cpu", "cpuacct"}},
		{point: "/sys/fs/cgroup/memory", root: "/docker/abc", controllers: []string{"memory"}},
		{point: "/sys/fs/cgroup/pids", root: "/", controllers: []string{"pids"}},
		{point: "/sys/fs/cgroup/uni fied", root: "/", v2: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseMountinfo:\n got %+v\nwant %+v", got, want)
	}
	paths := parseProcCgroup("12:pids:/user.slice\n4:memory:/docker/abc/x\n2:cpu,cpuacct:/\n0::/init.scope\nbad\n")
	wantPaths := map[string]string{"pids": "/user.slice", "memory": "/docker/abc/x", "cpu": "/", "cpuacct": "/", "": "/init.scope"}
	if !reflect.DeepEqual(paths, wantPaths) {
		t.Fatalf("parseProcCgroup: got %v, want %v", paths, wantPaths)
	}
	// A path below the mount's root maps under its mount point; one
	// outside it (another namespace's cgroup) maps nowhere.
	m := want[2]
	if d := own(m, "/docker/abc/x"); d != "/sys/fs/cgroup/memory/x" {
		t.Errorf("own: %q", d)
	}
	if d := own(m, "/other"); d != "" {
		t.Errorf("own outside the root: %q, want none", d)
	}
	if d := own(want[0], "/"); d != "/sys/fs/cgroup/cpu" {
		t.Errorf("own at the root: %q", d)
	}
}

func FuzzParseCgroupFiles(f *testing.F) {
	f.Add(sampleMountinfo, "0::/a\n1:pids:/b\n")
	f.Add(`1 2 3 /a\ /b - cgroup x pids`, "::\n")
	f.Fuzz(func(t *testing.T, mountinfo, cgroup string) {
		for _, m := range parseMountinfo(mountinfo) {
			for _, p := range parseProcCgroup(cgroup) {
				_ = own(m, p)
			}
		}
	})
}

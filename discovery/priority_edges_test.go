package discovery

import (
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestBoundTrustWinsPriority: with providers.<id>.trust bound to a
// source, a stray file that claims the id and ties with the bound one by
// the levels discovery computes (both unsigned, same folder level, same
// kind) but sorts first by path served the id, at its own lower level: the
// provider the operator vouched for was shadowed by anyone able to drop a
// file in a watched folder. Priority now counts the bound source at the
// level it is served at, and the mixed-claims warning says so.
func TestBoundTrustWinsPriority(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	top := func(plugins string) string {
		return "providers:\n  org.test.vendor: {trust: Verified, source: " + filepath.Join(plugins, "vendor") + "}\n"
	}
	env := newEnvTop(t, top, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "aaa.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"stray-echo"}})
		writeFake(t, filepath.Join(dir, "vendor", "tool.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"v-echo"}})
	}, withLogs(logs))
	p := env.h.Registry().Provider("org.test.vendor")
	if p == nil {
		t.Fatalf("org.test.vendor not served: %v", env.d.Errors())
	}
	if want := filepath.Join(env.dir, "vendor"); p.Source != want || p.Trust != abi.Verified {
		t.Errorf("org.test.vendor served from %s at %s; want %s at Verified (the override is bound to it)", p.Source, p.Trust, want)
	}
	if n := logLines(logs, "descriptions of different trust levels", "serving="+filepath.Join(env.dir, "vendor")+" trust=Verified"); n != 1 {
		t.Errorf("%d mixed-claims warnings naming vendor/ at Verified as serving; want 1:\n%s", n, logs.String())
	}
}

// TestUnboundTrustKeepsPriority: providers.<id>.trust without a
// source applies to every claim of the id, so it leaves priority to their
// own levels as before: of two unsigned artifacts the first path serves,
// at the configured level (no defect; guards the rank of bound levels).
func TestUnboundTrustKeepsPriority(t *testing.T) {
	top := func(string) string { return "providers:\n  org.test.vendor: {trust: Verified}\n" }
	env := newEnvTop(t, top, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "aaa.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"stray-echo"}})
		writeFake(t, filepath.Join(dir, "vendor", "tool.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"v-echo"}})
	}, nil)
	p := env.h.Registry().Provider("org.test.vendor")
	if p == nil {
		t.Fatalf("org.test.vendor not served: %v", env.d.Errors())
	}
	if want := filepath.Join(env.dir, "aaa.fake"); p.Source != want || p.Trust != abi.Verified {
		t.Errorf("org.test.vendor served from %s at %s; want %s at Verified", p.Source, p.Trust, want)
	}
}

// TestLoadedLogSaysServedTrust: the "provider loaded" line said the
// level discovery gave the description (Untrusted for an unsigned file)
// while the host served it at providers.<id>.trust (Verified), bound to
// its source or not: the log now says the level the provider is served at.
func TestLoadedLogSaysServedTrust(t *testing.T) {
	for _, bound := range []bool{true, false} {
		logs := &testutil.SyncBuffer{}
		top := func(plugins string) string {
			src := ""
			if bound {
				src = ", source: " + filepath.Join(plugins, "vendor")
			}
			return "providers:\n  org.test.vendor: {trust: Verified" + src + "}\n"
		}
		env := newEnvTop(t, top, "", func(dir string) {
			writeFake(t, filepath.Join(dir, "vendor", "tool.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"v-echo"}})
		}, withLogs(logs))
		if p := env.h.Registry().Provider("org.test.vendor"); p == nil || p.Trust != abi.Verified {
			t.Fatalf("bound=%v: org.test.vendor not served at Verified: %+v %v", bound, p, env.d.Errors())
		}
		if n := logLines(logs, "provider loaded", "org.test.vendor", "trust=Verified"); n != 1 {
			t.Errorf("bound=%v: %d 'provider loaded ... trust=Verified' lines; want 1:\n%s", bound, n, logs.String())
		}
	}
}

// TestGenerationTrustIsServedTrust: a generation's trust is the level
// a call that reaches it after a hot swap checks before it is forwarded to
// the new code (TestForwardNotToLowerTrust): it was the level discovery
// gave the description, not the level the host served it at, so a provider
// raised to Verified by providers.<id>.trust and swapped for an unsigned
// stray (both "Untrusted" to discovery) lent the stray a Verified call's
// grants. It is now the registry's level.
func TestGenerationTrustIsServedTrust(t *testing.T) {
	for _, bound := range []bool{true, false} {
		top := func(plugins string) string {
			src := ""
			if bound {
				src = ", source: " + filepath.Join(plugins, "vendor")
			}
			return "providers:\n  org.test.vendor: {trust: Verified" + src + "}\n"
		}
		env := newEnvTop(t, top, "", func(dir string) {
			writeFake(t, filepath.Join(dir, "vendor", "tool.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"v-echo"}})
		}, nil)
		p := env.h.Registry().Provider("org.test.vendor")
		if p == nil {
			t.Fatalf("bound=%v: org.test.vendor not served: %v", bound, env.d.Errors())
		}
		g, ok := env.d.gens.Load("org.test.vendor")
		if !ok {
			t.Fatalf("bound=%v: no generation for org.test.vendor", bound)
		}
		if gt := g.(*generation).trust; gt != p.Trust {
			t.Errorf("bound=%v: generation's trust %s, registry's %s; want the same", bound, gt, p.Trust)
		}
	}
}

// TestFiredDebounceNotRearmed: a change that came while the unit's
// debounce timer had fired and its callback was waiting for the lock reset
// the fired timer, which armed it again: the callback sent the unit to be
// reloaded, and the timer fired once more and sent it a second time (and
// dropped the pending timer of a later change, if any, from the map). The
// waiting callback's reload sees that change already (it reads the files
// after): the timer is left alone, the unit reloaded once.
func TestFiredDebounceNotRearmed(t *testing.T) {
	d := &Discovery{cfg: Config{Debounce: time.Millisecond}, opts: Options{maxDelay: time.Hour},
		pending: map[string]*time.Timer{}, firstChange: map[string]time.Time{}, unsettled: map[string]uint64{},
		work: make(chan string, 8), stop: make(chan struct{})}
	defer close(d.stop)
	d.schedule("u")
	d.mu.Lock()
	// Wait (holding the lock) until the timer has fired and its callback
	// waits for the lock.
	// (30 s, and a sleep between looks: each look stops the world to
	// dump every goroutine, and a full package run under -race on a
	// loaded machine outlasted 5 s of back-to-back looks.)
	deadline := time.Now().Add(30 * time.Second)
	for !callbackWaiting() {
		if time.Now().After(deadline) {
			d.mu.Unlock()
			t.Fatal("the debounce callback never waited for the lock")
		}
		time.Sleep(2 * time.Millisecond)
	}
	d.scheduleLocked("u") // the change that comes meanwhile
	d.mu.Unlock()
	select {
	case <-d.work:
	case <-time.After(5 * time.Second):
		t.Fatal("unit never sent to be reloaded")
	}
	select {
	case <-d.work:
		t.Error("unit sent to be reloaded twice for one settled change")
	case <-time.After(200 * time.Millisecond):
	}
}

// callbackWaiting reports whether a debounce callback (schedule's
// AfterFunc) is blocked on a mutex.
func callbackWaiting() bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "[sync.Mutex.Lock") && strings.Contains(g, "scheduleLocked.func1") {
			return true
		}
	}
	return false
}

// TestShadowedAdapterSaysServedTrust: Adapters (aios/registry.search
// and info, for a description that does not serve) said the level
// discovery gave a description, not the one it is served at: a provider
// bound to providers.<id>.trust Verified and shadowed by a System-signed
// card was listed as Untrusted. It now says the level it serves at when
// it serves, and the serving description stays first.
func TestShadowedAdapterSaysServedTrust(t *testing.T) {
	k := newTestKey(t, "System")
	top := func(plugins string) string {
		return "providers:\n  org.test.vendor: {trust: Verified, source: " + filepath.Join(plugins, "vendor") + "}\n"
	}
	env := newEnvTop(t, top, k.cfg, func(dir string) {
		writeFake(t, filepath.Join(dir, "vendor", "tool.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"v-echo"}})
		signedFolder(t, k, filepath.Join(dir, "sys"), `{"adapter": {"id": "org.test.vendor", "name": "Sys", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "s-echo", "name": "S", "permission_level": "low"}], "artifact": {"path": "tool.fake"}}`,
			fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"s-echo"}})
	}, nil)
	var got []string
	for _, a := range env.d.Adapters() {
		if a.ID == "org.test.vendor" {
			got = append(got, filepath.Base(a.Source)+" "+a.Trust.String()+" "+strconv.FormatBool(a.Active))
		}
	}
	if want := []string{"sys System true", "vendor Verified false"}; !slices.Equal(got, want) {
		t.Errorf("Adapters() of org.test.vendor: %q; want %q (%v)", got, want, env.d.Errors())
	}
}

// TestMixedClaimsWarningSaysServedTrust: with providers.<id>.trust
// set without a source, the several-claims warning said the serving stray
// was Untrusted (the level discovery gave it) while the host served it at
// the configured Verified, hiding the very risk the warning is for. It now
// says the served level, and each claim served at another level than its
// own says so.
func TestMixedClaimsWarningSaysServedTrust(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	top := func(string) string { return "providers:\n  org.test.vendor: {trust: Verified}\n" }
	env := newEnvTop(t, top, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "aaa.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"stray-echo"}})
		writeFake(t, filepath.Join(dir, "vendor", "tool.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"v-echo"}})
	}, withLogs(logs))
	stray := filepath.Join(env.dir, "aaa.fake")
	if n := logLines(logs, "several descriptions claim one provider id", "serving="+stray+" trust=Verified",
		stray+" (Untrusted, artifact, served at Verified)"); n != 1 {
		t.Errorf("%d several-claims warnings saying %s serves at Verified; want 1:\n%s", n, stray, logs.String())
	}
}

// TestUnmatchedSourceWarned: providers.<id>.source naming the
// artifact inside a folder provider (whose source is its folder), or the
// folder by another path (a symlink), matches no description: the level
// applied to nothing, and with a stray claiming the id only the stray was
// named ("not applied"), never the provider meant. Discovery now warns
// that the source matches none of the descriptions claiming the id, lists
// them, and says how sources are compared; not when one matches.
func TestUnmatchedSourceWarned(t *testing.T) {
	for _, tc := range []struct {
		source func(plugins string) string
		warn   int
	}{
		{func(p string) string { return filepath.Join(p, "vendor", "tool.fake") }, 1},
		{func(p string) string { return filepath.Join(p, "vendor") }, 0},
	} {
		logs := &testutil.SyncBuffer{}
		top := func(plugins string) string {
			return "providers:\n  org.test.vendor: {trust: Verified, source: " + tc.source(plugins) + "}\n"
		}
		env := newEnvTop(t, top, "", func(dir string) {
			writeFake(t, filepath.Join(dir, "aaa.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"stray-echo"}})
			writeFake(t, filepath.Join(dir, "vendor", "tool.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"v-echo"}})
		}, withLogs(logs))
		src := tc.source(env.dir)
		if n := logLines(logs, "providers.org.test.vendor.source matches none of the descriptions", "source="+src,
			filepath.Join(env.dir, "vendor"), "a folder provider's source is its folder"); n != tc.warn {
			t.Errorf("source %s: %d unmatched-source warnings; want %d:\n%s", src, n, tc.warn, logs.String())
		}
	}
}

// TestBoundSourceWinsTies: providers.<id>.trust bound to a source
// that lowers its level (a signed Verified card the operator serves at
// Untrusted) made it tie with an unsigned stray card of the id, which then
// served by sorting first by path: the provider the config names for the
// id shadowed by a dropped file. Among descriptions of one level the
// bound one now wins, before kind and path, and the warning says so.
func TestBoundSourceWinsTies(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	k := newTestKey(t, "Verified")
	card := func(skill string) string {
		return `{"adapter": {"id": "org.test.vendor", "name": "V", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "` + skill + `", "name": "S", "permission_level": "low"}], "artifact": {"path": "tool.fake"}}`
	}
	top := func(plugins string) string {
		return "providers:\n  org.test.vendor: {trust: Untrusted, source: " + filepath.Join(plugins, "vendor") + "}\n"
	}
	env := newEnvTop(t, top, k.cfg, func(dir string) {
		writeFake(t, filepath.Join(dir, "aaa", "tool.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"stray-echo"}})
		writeFile(t, filepath.Join(dir, "aaa", "adapter.json"), card("stray-echo"))
		signedFolder(t, k, filepath.Join(dir, "vendor"), card("v-echo"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"v-echo"}})
	}, withLogs(logs))
	p := env.h.Registry().Provider("org.test.vendor")
	if p == nil {
		t.Fatalf("org.test.vendor not served: %v", env.d.Errors())
	}
	if want := filepath.Join(env.dir, "vendor"); p.Source != want || p.Trust != abi.Untrusted {
		t.Errorf("org.test.vendor served from %s at %s; want %s at Untrusted (bound to it)", p.Source, p.Trust, want)
	}
	if n := logLines(logs, "the one from providers.org.test.vendor.source serves", "serving="+filepath.Join(env.dir, "vendor")); n != 1 {
		t.Errorf("%d several-claims warnings naming the bound source as serving; want 1:\n%s", n, logs.String())
	}
}

package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/discovery"
)

// TestInfoSoftwareVersion: aios/registry.info reports the installed
// version of a card's software (from the dpkg database), whether it meets
// min_version (too old: not installed, unavailable, with an error naming
// min_version), and the state of a dbus_service (unknown when no bus can
// be asked, which fails nothing); search reports the too-old one
// unavailable.
func TestInfoSoftwareVersion(t *testing.T) {
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("dbus-daemon is not installed (Debian package dbus-daemon; scripts/deps.sh installs it): it is the dpkg-installed program this test reads the version of")
	}
	daemon, _ = filepath.EvalSymlinks(daemon)
	det := discovery.Detect(&discovery.Software{Name: "dbus", Detection: &discovery.Detection{Executable: daemon}}, nil)
	if det.Version == "" {
		t.Skipf("the dpkg database knows no version of %s: %v", daemon, det.Notes)
	}
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path="+filepath.Join(dir, "no-such-bus.sock"))
	card := func(id, software string) string {
		return `{"adapter": {"id": "` + id + `", "name": "` + id + `", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "` + strings.ReplaceAll(id, ".", "-") + `", "name": "Open", "permission_level": "low"}],
  "endpoints": {"rpc": "unix:///nonexistent/aios-test-sw.sock"},
  "requirements": {"software": ` + software + `}}`
	}
	for name, data := range map[string]string{
		"old.adapter.json": card("org.test.swold", `{"name": "D-Bus daemon", "min_version": "999.0", "detection": {"executable": "`+daemon+`"}}`),
		"new.adapter.json": card("org.test.swnew", `{"name": "D-Bus daemon", "min_version": "1.0", "detection": {"executable": "`+daemon+`"}}`),
		"bus.adapter.json": card("org.test.swbus", `{"name": "Bus app", "detection": {"dbus_service": "org.aios.Test.Nowhere"}}`),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A card's local socket needs Network(localhost) (discovery's TestUnixEndpointNeedsLocalNetwork).
	ts := newTestServer(t, "discovery: {dirs: ["+dir+"], desktop_dirs: []}\ntrust: {caps: {Untrusted: [\"CallTool(*)\", \"Network(localhost)\"]}}\n", false)
	ts.startDiscovery(t)
	c := dial(t, ts)
	info := func(id string) InfoStatus {
		t.Helper()
		var r struct{ Status InfoStatus }
		if err := c.Call(context.Background(), "aios/registry.info", map[string]any{"adapter_id": id}, &r); err != nil {
			t.Fatalf("info %s: %v", id, err)
		}
		return r.Status
	}

	st := info("org.test.swold")
	if st.SoftwareInstalled || st.Available || st.SoftwareVersion != det.Version || st.VersionOK == nil || *st.VersionOK ||
		!strings.HasPrefix(st.VersionSource, "dpkg:") || !strings.Contains(st.Error, "min_version 999.0") || !strings.Contains(st.SoftwareReason, det.Version) {
		t.Fatalf("too old: %+v", st)
	}
	st = info("org.test.swnew")
	if !st.SoftwareInstalled || !st.Available || st.SoftwareVersion != det.Version || st.VersionOK == nil || !*st.VersionOK || st.Error != "" {
		t.Fatalf("new enough: %+v", st)
	}
	st = info("org.test.swbus")
	if !st.SoftwareInstalled || !st.Available || st.DBusService != discovery.DBusUnknown || st.SoftwareVersion != "" || st.VersionOK != nil ||
		!strings.Contains(strings.Join(st.SoftwareNotes, ";"), "DBUS_SESSION_BUS_ADDRESS is not set") {
		t.Fatalf("bus unknown: %+v", st)
	}

	var r struct{ Adapters []AdapterSummary }
	if err := c.Call(context.Background(), "aios/registry.search", map[string]any{"query": "org.test.sw"}, &r); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range r.Adapters {
		got[a.ID] = a.Status
	}
	if got["org.test.swold"] != "unavailable" || got["org.test.swnew"] != "available" || got["org.test.swbus"] != "available" {
		t.Fatalf("search statuses: %v", got)
	}
}

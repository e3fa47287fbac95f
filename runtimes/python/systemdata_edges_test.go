package python_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// The sandbox let a tool read none of the machine's public data files
// that Python's standard library reads: mimetypes.guess_type("a.json")
// raised "PermissionError: … '/etc/mime.types'" (mimetypes reads it when
// it exists), zoneinfo.ZoneInfo("Europe/Paris") "Permission denied:
// '/usr/share/zoneinfo/Europe/Paris'", and ssl's default context had no CA
// certificate (/etc/ssl/certs), so a tool granted Network(host) could not
// verify any HTTPS server. These files are readable now (never
// /etc/ssl/private).
func TestStdlibSystemDataReadable(t *testing.T) {
	rt := newRuntime(t, nil)
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, rt)
	loadTool(t, h, "sysdata.py", `import datetime, mimetypes, os, ssl, zoneinfo
from aios_sdk import tool

def attempt(f):
    try:
        return f()
    except Exception as e:
        return "%s: %s" % (type(e).__name__, e)

@tool
def sysdata(params):
    return {
        "mime": attempt(lambda: mimetypes.guess_type("a.json")[0]),
        "tz": attempt(lambda: str(zoneinfo.ZoneInfo("Europe/Paris").utcoffset(datetime.datetime(2020, 1, 1)))),
        "ca": attempt(lambda: ssl.create_default_context().cert_store_stats()["x509_ca"] > 0),
        "private": attempt(lambda: os.listdir("/etc/ssl/private")),
    }
`)
	v, err := call(h, "sysdata", map[string]any{}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := v.(map[string]any)
	t.Logf("%v", r)
	if r["mime"] != "application/json" {
		t.Errorf("mimetypes.guess_type(\"a.json\"): %v; want application/json", r["mime"])
	}
	if _, err := os.Stat("/usr/share/zoneinfo/Europe/Paris"); err == nil && r["tz"] != "1:00:00" {
		t.Errorf("ZoneInfo(\"Europe/Paris\").utcoffset(2020-01-01): %v; want 1:00:00", r["tz"])
	}
	if _, err := os.Stat("/etc/ssl/certs/ca-certificates.crt"); err == nil && r["ca"] != true {
		t.Errorf("ssl's default context holds no CA certificate: %v", r["ca"])
	}
	if _, err := os.Stat("/etc/ssl/private"); err == nil && rt.Layers().Landlock > 0 && !rt.Layers().Disabled {
		if s, _ := r["private"].(string); !strings.HasPrefix(s, "PermissionError") {
			t.Errorf("os.listdir(\"/etc/ssl/private\"): %v; want it refused", r["private"])
		}
	}
}

package mcp

import (
	"strings"
	"testing"
)

// A stdio server's command line is its source, in the host's log ("mcp
// server connected" source=…, "provider added"), in Status and in the
// source `list` shows; its arguments often hold a secret (the reference
// postgres server takes postgresql://user:password@host/db, others
// --api-key KEY or --token=KEY), which went there whole, where a URL
// server's password and query are not shown (TestURLSecretsNotShown).
// The password of a URL argument and the value of an argument whose flag
// names a secret are shown as xxxxx now.
func TestStdioArgSecretsNotShown(t *testing.T) {
	sc := fakeConfig(t, "good")
	// The fake server (this test binary) stops reading flags at the
	// first argument that is not one; the rest are only shown.
	sc.Args = append(sc.Args, "postgresql://app:hunter2@db.internal/app?sslpassword=s3krit0", "--api-key", "sekrit1", "--token=sekrit2", "-p", "plain")
	b, _, logs, err := startBridge(t, map[string]ServerConfig{"pg": sc})
	if err != nil {
		t.Fatal(err)
	}
	sts := b.Status()
	if len(sts) != 1 || !sts[0].Connected {
		t.Fatalf("status %+v: want the server connected (the arguments are passed as given)", sts)
	}
	all := sts[0].Source + "\n" + sc.Source() + "\n" + logs.String()
	for _, secret := range []string{"hunter2", "s3krit0", "sekrit1", "sekrit2"} {
		if strings.Contains(all, secret) {
			t.Errorf("%s shown:\n%s", secret, all)
		}
	}
	if src := sc.Source(); !strings.Contains(src, "postgresql://app:xxxxx@db.internal/app?…") || !strings.Contains(src, "--api-key xxxxx --token=xxxxx -p plain") {
		t.Errorf("source %q: want the secrets replaced, the rest kept", src)
	}
}

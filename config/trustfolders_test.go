package config

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// The defaults vouch for the bundled samples folder (Community) under its
// absolute path. A file that sets that folder's level under another
// spelling — relative as in example.yaml, "./x", a trailing slash, "~/…" —
// added a second entry for the same folder, and FolderTrust took whichever
// the map iteration met first: the file's level on some runs, the
// default's on others.
func TestTrustFolderOverridesDefault(t *testing.T) {
	b := BundledPlugins()
	if b == "" {
		t.Skip("no bundled samples folder")
	}
	for i := 0; i < 50; i++ {
		c, err := Parse([]byte("trust:\n  folders:\n    \""+b+"/\": Untrusted\n"), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.FolderTrust(b); got != abi.Untrusted {
			t.Fatalf("run %d: FolderTrust(bundled) = %v, want the file's Untrusted (folders %v)", i, got, c.Trust.Folders)
		}
	}
}

// Two entries of the file naming one folder with different levels are
// refused, naming both (which one applied depended on map order).
func TestTrustFolderTwice(t *testing.T) {
	_, err := Parse([]byte("trust:\n  folders:\n    /srv/plugins: Verified\n    /srv/plugins/: Untrusted\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "/srv/plugins/") || !strings.Contains(err.Error(), "same folder") {
		t.Fatalf("err = %v, want both entries named", err)
	}
	if _, err := Parse([]byte("trust:\n  folders:\n    /srv/plugins: Verified\n    /srv/./plugins: Verified\n"), "c.yaml"); err != nil {
		t.Fatalf("two spellings with one level: %v", err)
	}
}

// trust.caps given both as System and as system: which list applied was
// undocumented (the other spelling won); two non-canonical spellings were
// already refused.
func TestTrustCapsCanonicalAndOtherSpelling(t *testing.T) {
	_, err := Parse([]byte("trust:\n  caps:\n    System: []\n    system: [\"CallTool(*)\"]\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "same trust level") {
		t.Fatalf("err = %v, want the two spellings refused", err)
	}
	c, err := Parse([]byte("trust:\n  caps:\n    system: [\"CallTool(*)\"]\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if caps, _ := c.TrustCapsOf(abi.System); len(caps) != 1 {
		t.Fatalf("system alone: %v", caps)
	}
}

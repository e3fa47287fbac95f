package discovery

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestTinyRemoteRefreshRefused: discovery.remote_refresh is the period of
// the timers that fetch every remote card, read the trusted key files
// again and retry units whose key set could not be fetched. A tiny value
// (1ns, or 1ms written for 1m) was taken: the timers fired back to back,
// an idle host with no remote burnt a third of a core, and one with
// remotes fetched their cards without pause. A value below 100ms is now
// refused at start naming its line; 100ms and more are taken as before.
func TestTinyRemoteRefreshRefused(t *testing.T) {
	for _, v := range []string{"1ns", "1ms", "99ms"} {
		cfg, err := config.Parse([]byte("discovery:\n  remote_refresh: "+v+"\n"), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		want := "c.yaml:2: discovery.remote_refresh: " + v + " is below 100ms"
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("remote_refresh %s: err = %v, want %q…", v, err, want)
		}
	}
	cfg, err := config.Parse([]byte("discovery:\n  remote_refresh: 100ms\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(cfg); err != nil || c.RemoteRefresh.String() != "100ms" {
		t.Errorf("remote_refresh 100ms: %v, %v", c.RemoteRefresh, err)
	}
}

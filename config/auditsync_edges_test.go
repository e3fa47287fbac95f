package config

import (
	"strings"
	"testing"
)

// TestTinyAuditSyncIntervalRefused: audit.sync_interval is the period of
// the audit writer's timer, which wakes it whether or not records wait. A
// tiny one (1ns) was taken: the timer fired back to back and an idle host
// burnt 40 % of a core (1ms: 6 %), where fsyncing every record is
// sync_every: 1's job. Below 10ms is now refused, naming the line and
// sync_every; 10ms and more are taken as before.
func TestTinyAuditSyncIntervalRefused(t *testing.T) {
	for _, v := range []string{"1ns", "1ms", "9ms"} {
		_, err := Parse([]byte("audit:\n  sync_interval: "+v+"\n"), "c.yaml")
		want := "c.yaml:2: audit.sync_interval: " + v + " is below 10ms"
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "sync_every: 1") {
			t.Errorf("sync_interval %s: err = %v, want %q… naming sync_every: 1", v, err, want)
		}
	}
	c, err := Parse([]byte("audit:\n  sync_interval: 10ms\n"), "c.yaml")
	if err != nil || c.Audit.SyncInterval.String() != "10ms" {
		t.Errorf("sync_interval 10ms: %v", err)
	}
	// Off, the log's settings are not looked at.
	if _, err := Parse([]byte("audit:\n  disabled: true\n  sync_interval: 1ns\n"), "c.yaml"); err != nil {
		t.Errorf("disabled log: %v", err)
	}
}

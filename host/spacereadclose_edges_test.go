package host

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCloseWaitsForSpaceRead: a Space read outside any tool call
// (ReadSpaceAs, an MCP client's resources/read) was not counted among
// the calls Close waits for, so a Close during the read closed the audit
// log under it: the client got the object, and the read's record was
// dropped ("audit record dropped: the log was closed before the call
// ended"), a read with no trace, where the docs give it a record
// whatever its outcome. Close waits for it as for a call, and its
// record is in the log.
func TestCloseWaitsForSpaceRead(t *testing.T) {
	te := newTestHost(t, nil)
	id, err := te.spaces.Put("source", []byte("package main"))
	if err != nil {
		t.Fatal(err)
	}
	inRead, release := make(chan struct{}), make(chan struct{})
	readDone := make(chan error, 1)
	go func() {
		_, err := te.h.ReadSpaceAsChecked(context.Background(), "alice", "source", id, func([]byte) *abi.ToolError {
			close(inRead)
			<-release
			return nil
		})
		readDone <- err
	}()
	<-inRead
	closed := make(chan error, 1)
	go func() { closed <- te.h.Close() }()
	select {
	case err := <-closed:
		close(release)
		<-readDone
		t.Fatalf("Close returned (%v) while a Space read was in flight", err)
	case <-time.After(300 * time.Millisecond): // Close is waiting for the read
	}
	close(release)
	if err := <-readDone; err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	log, err := os.ReadFile(te.audit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `"tool":"`+SpaceReadTool+`"`) {
		t.Errorf("the read's audit record is not in the log:\n%s", log)
	}
}

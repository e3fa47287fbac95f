package wasm

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestClockFollowsFinalGrants: whether a guest asking for Clock gets the
// real clock follows the grants the host will give it (Source.GrantsFor:
// providers.<id>.trust and .grants), not the folder's trust cap.
func TestClockFollowsFinalGrants(t *testing.T) {
	path := buildWAT(t, sleepWAT())
	clock := abi.Grants{{Kind: CapClock}}
	for _, tc := range []struct {
		name      string
		cap, held abi.Grants
		want      bool
	}{
		{"lowered", clock, nil, false},
		{"raised", nil, clock, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newTestLoader(t, Config{}, nil)
			var askedID string
			src := abi.Source{Path: path, Grants: tc.cap, GrantsFor: func(id string, _ abi.Grants) (abi.TrustLevel, abi.Grants) {
				askedID = id
				return abi.Verified, tc.held
			}}
			p, err := l.Load(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if askedID != "org.test.sleeper" {
				t.Fatalf("GrantsFor asked for %q, want org.test.sleeper", askedID)
			}
			if got := p.(*Provider).realClock; got != tc.want {
				t.Fatalf("real clock %v, want %v", got, tc.want)
			}
		})
	}
}

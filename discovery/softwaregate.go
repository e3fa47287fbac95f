package discovery

import (
	"sync"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// softwareGate answers the calls of an adapter whose card names
// requirements.software with Unavailable while that software is not
// installed (or is older than min_version): its tools stay registered,
// and search and info report it unavailable, but its calls ran as if
// the software were there. Detection (a stat of the executable or the
// desktop file, the dpkg database, D-Bus) is redone at most every
// softwareRecheck, so installing the software takes effect without a
// reload.
type softwareGate struct {
	id   string
	sw   *Software
	opts DetectOptions

	mu  sync.Mutex
	at  time.Time
	det Detected
}

// softwareRecheck is how long a detection answer is kept for calls.
const softwareRecheck = 2 * time.Second

// newSoftwareGate is the gate of card's adapter, nil when the card names
// no requirements.software.
func newSoftwareGate(c *Card, opts DetectOptions) *softwareGate {
	if c == nil || c.Requirements == nil || c.Requirements.Software == nil {
		return nil
	}
	return &softwareGate{id: c.Adapter.ID, sw: c.Requirements.Software, opts: opts}
}

// check is nil when the software is installed (or g is nil), else an
// Unavailable naming the adapter, the software and why.
func (g *softwareGate) check() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	if g.at.IsZero() || time.Since(g.at) >= softwareRecheck {
		g.det = DetectWith(g.sw, g.opts)
		g.at = time.Now()
	}
	det := g.det
	g.mu.Unlock()
	if det.Installed {
		return nil
	}
	what := g.sw.Name
	if g.sw.MinVersion != "" {
		what += " " + g.sw.MinVersion + " or later"
	}
	why := det.Reason
	if why == "" {
		why = "not found"
	}
	return abi.Errorf(abi.Unavailable, "adapter %s needs %s (its card's requirements.software), which is not installed here: %s", g.id, what, why)
}

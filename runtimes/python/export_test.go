package python

import (
	"context"
	"time"
)

// OfferJSONOnly makes rt's workers offer only json in their hello, as a
// worker without the msgpack module does.
func OfferJSONOnly(rt *Runtime) { rt.noMsgpack = true }

// NoPIDNamespace makes rt start its workers without a PID namespace.
func NoPIDNamespace(rt *Runtime) { rt.noPIDNS = true }

// MaxCallConns is the most brokered connections a call holds open.
const MaxCallConns = maxCallConns

// OlderLandlock makes rt's workers get at most Landlock ABI v (rights and
// rules of a kernel whose Landlock is older: ABI 3 has no TCP rules, 5 no
// scopes), and returns the ABI they get.
func OlderLandlock(rt *Runtime, v int) (int, error) {
	if err := rt.Probe(context.Background()); err != nil {
		return 0, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.layers.Landlock = min(rt.layers.Landlock, v)
	return rt.layers.Landlock, nil
}

// SetStackWait makes rt's calls past their deadline wait up to d for the
// worker's stack (tests on a loaded machine; set before any call).
func SetStackWait(rt *Runtime, d time.Duration) { rt.stackWait = d }

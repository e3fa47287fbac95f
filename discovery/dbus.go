package discovery

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// D-Bus states of requirements.software.detection.dbus_service.
const (
	DBusRunning     = "running"     // the name has an owner
	DBusActivatable = "activatable" // the bus can start it (ListActivatableNames)
	DBusAbsent      = "absent"      // every bus was asked and none knows it
	DBusUnknown     = "unknown"     // a bus could not be asked and none knows it
)

const (
	// dbusTimeout bounds connecting to a bus and asking it (each bus).
	dbusTimeout = time.Second
	// dbusTTL is how long what a bus answered (or that it could not be
	// reached) is reused: search looks at every adapter, and a bus that
	// does not answer costs dbusTimeout once per TTL, not once per adapter.
	dbusTTL = 2 * time.Second
	// defaultSystemBus is the well-known system bus socket (D-Bus spec).
	defaultSystemBus = "unix:path=/var/run/dbus/system_bus_socket"
)

// ValidateBusName checks a well-known D-Bus bus name (D-Bus spec, "Bus
// names"): 2 or more dot-separated elements of [A-Za-z0-9_-], none empty
// or starting with a digit, at most 255 bytes. Unique names (:1.42) are
// refused: they change with every connection.
func ValidateBusName(s string) error {
	if s == "" {
		return fmt.Errorf("empty bus name")
	}
	if len(s) > 255 {
		return fmt.Errorf("bus name is %d bytes, longer than 255", len(s))
	}
	if s[0] == ':' {
		return fmt.Errorf("%q is a unique connection name; name a well-known one such as org.example.App", s)
	}
	elems := strings.Split(s, ".")
	if len(elems) < 2 {
		return fmt.Errorf("%q needs at least two dot-separated elements (org.example.App)", s)
	}
	for _, e := range elems {
		if e == "" {
			return fmt.Errorf("%q has an empty element", s)
		}
		if e[0] >= '0' && e[0] <= '9' {
			return fmt.Errorf("%q: element %q starts with a digit", s, e)
		}
		for _, r := range e {
			if !isAlnum(r) && r != '_' && r != '-' {
				return fmt.Errorf("%q: element %q holds %q (want A-Z a-z 0-9 _ -)", s, e, r)
			}
		}
	}
	return nil
}

// busNames is what one bus said: the names with an owner and the
// activatable ones, or why it could not be asked.
type busNames struct {
	owned, activatable map[string]bool
	err                error
	at                 time.Time
}

var (
	busCacheMu sync.Mutex
	busCache   = map[string]*busEntry{}
)

type busEntry struct {
	mu      sync.Mutex // one probe of a bus at a time; others wait for its answer
	names   *busNames
	running chan struct{} // closed when a timed-out probe's goroutine ends
}

// defaultBuses are the session bus (DBUS_SESSION_BUS_ADDRESS; "" when it is
// not set: never autolaunched) and the system bus
// (DBUS_SYSTEM_BUS_ADDRESS, else the well-known socket).
func defaultBuses() []busAddr {
	session := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if session == "autolaunch:" {
		session = ""
	}
	system := os.Getenv("DBUS_SYSTEM_BUS_ADDRESS")
	if system == "" {
		system = defaultSystemBus
	}
	return []busAddr{{"session", session}, {"system", system}}
}

type busAddr struct{ kind, addr string }

// dbusState asks each bus about name: running when a bus has an owner for
// it, else activatable when a bus can start it, else absent when every
// bus answered, else unknown. note says which bus could not be asked.
func dbusState(name string, buses []busAddr) (state, note string) {
	var notes []string
	state = DBusAbsent
	for _, b := range buses {
		n := askBus(b)
		if n.err != nil {
			notes = append(notes, fmt.Sprintf("%s bus: %v", b.kind, n.err))
			if state == DBusAbsent {
				state = DBusUnknown
			}
			continue
		}
		switch {
		case n.owned[name]:
			return DBusRunning, ""
		case n.activatable[name]:
			state = DBusActivatable
		}
	}
	if state == DBusActivatable {
		return state, ""
	}
	return state, strings.Join(notes, "; ")
}

// askBus returns what bus b said within the last dbusTTL, asking it now
// when that is older.
func askBus(b busAddr) *busNames {
	if b.addr == "" {
		return &busNames{err: fmt.Errorf("no address (DBUS_SESSION_BUS_ADDRESS is not set)")}
	}
	busCacheMu.Lock()
	e := busCache[b.addr]
	if e == nil {
		e = &busEntry{}
		busCache[b.addr] = e
	}
	busCacheMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.names != nil && time.Since(e.names.at) < dbusTTL {
		return e.names
	}
	if e.running != nil {
		select {
		case <-e.running:
			e.running = nil
		default:
			// A previous probe's dial is still stuck (a bus that never
			// answers): no second one beside it.
			e.names = &busNames{err: fmt.Errorf("%s has not answered an earlier probe yet", b.addr), at: time.Now()}
			return e.names
		}
	}
	var running chan struct{}
	e.names, running = probeBus(b.addr, dbusTimeout)
	e.names.at = time.Now()
	if running != nil {
		e.running = running
	}
	return e.names
}

// probeBus connects to the bus at addr, authenticates and lists its owned
// and activatable names, all within timeout. It never starts a service
// (ListActivatableNames only lists them) and never autolaunches a bus.
func probeBus(addr string, timeout time.Duration) (*busNames, chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan *busNames, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- listBus(ctx, addr)
	}()
	select {
	case n := <-done:
		return n, nil
	case <-ctx.Done():
		// The connection closes with ctx (dbus.WithContext); a dial that
		// does not return (a tcp: address that drops packets) is left to
		// finish on its own, and no other probe of the bus starts until it
		// has (finished).
		return &busNames{err: fmt.Errorf("%s did not answer within %v", addr, timeout)}, finished
	}
}

func listBus(ctx context.Context, addr string) *busNames {
	conn, err := dbus.Dial(addr, dbus.WithContext(ctx))
	if err != nil {
		return &busNames{err: fmt.Errorf("%s: %v", addr, err)}
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return &busNames{err: fmt.Errorf("%s: authentication: %v", addr, err)}
	}
	if err := conn.Hello(); err != nil {
		return &busNames{err: fmt.Errorf("%s: hello: %v", addr, err)}
	}
	obj := conn.BusObject()
	var owned, act []string
	if err := obj.CallWithContext(ctx, "org.freedesktop.DBus.ListNames", 0).Store(&owned); err != nil {
		return &busNames{err: fmt.Errorf("%s: ListNames: %v", addr, err)}
	}
	if err := obj.CallWithContext(ctx, "org.freedesktop.DBus.ListActivatableNames", 0).Store(&act); err != nil {
		return &busNames{err: fmt.Errorf("%s: ListActivatableNames: %v", addr, err)}
	}
	n := &busNames{owned: map[string]bool{}, activatable: map[string]bool{}}
	for _, s := range owned {
		n.owned[s] = true
	}
	for _, s := range act {
		n.activatable[s] = true
	}
	return n
}

package registry

import "sync"

// Event tells a subscriber what one registry change did. Added, Removed and
// Updated (same name@version, changed definition) are sorted by name then
// version. The slices are shared by every subscriber: read, never modify.
//
// Overflow means the subscriber fell behind: its buffer was full, so the
// events it had not read yet were dropped together with the new one, and
// this single event replaces them. Added, Removed and Updated are empty;
// the subscriber must re-list everything (Registry.Tools) to resynchronize.
type Event struct {
	Added    []ToolRef `json:"added,omitempty"`
	Removed  []ToolRef `json:"removed,omitempty"`
	Updated  []ToolRef `json:"updated,omitempty"`
	Overflow bool      `json:"overflow,omitempty"`
	// Provider is the provider (adapter) the change is about: added (it
	// was not registered), removed (it is gone), or updated (its tools, or
	// its name, version, description, runtime, trust or source changed).
	// Nil with Overflow.
	Provider *ProviderChange `json:"provider,omitempty"`
	// Violations are the tool versions of this change that break callers
	// of the version below them without a major version increase
	// (registered because the SemVer check warns; see SemverCheck).
	Violations []SemverViolation `json:"violations,omitempty"`
}

// ProviderChange says what happened to one provider in an Event.
type ProviderChange struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Version string `json:"version"`
	Action  string `json:"action"` // "added", "removed" or "updated"
}

func (e Event) empty() bool {
	return len(e.Added) == 0 && len(e.Removed) == 0 && len(e.Updated) == 0 && !e.Overflow && e.Provider == nil
}

// MaxSubscribeBuffer bounds Subscribe's buffer: past it a subscriber
// that reads nothing gets an Overflow event, as with a smaller buffer.
const MaxSubscribeBuffer = 1 << 16

type subscriber struct {
	ch chan Event
}

type subscribers struct {
	mu sync.Mutex
	m  map[*subscriber]struct{}
}

// Subscribe returns a channel that receives one Event per registry change,
// and a cancel function that closes the channel (idempotent). buf is the
// channel's buffer (at least 1, at most MaxSubscribeBuffer). A slow
// subscriber never blocks registration: when its buffer is full, the
// events it has not read are discarded and one Event with Overflow set
// takes their place.
func (r *Registry) Subscribe(buf int) (<-chan Event, func()) {
	// A larger buffer panicked in make ("makechan: size out of range"),
	// or took its memory up front for events that never come.
	buf = min(max(buf, 1), MaxSubscribeBuffer)
	s := &subscriber{ch: make(chan Event, buf)}
	r.subs.mu.Lock()
	r.subs.m[s] = struct{}{}
	r.subs.mu.Unlock()
	var once sync.Once
	cancel := func() {
		once.Do(func() {
			r.subs.mu.Lock()
			delete(r.subs.m, s)
			close(s.ch)
			r.subs.mu.Unlock()
		})
	}
	return s.ch, cancel
}

// publish delivers ev to every subscriber without blocking.
func (ss *subscribers) publish(ev Event) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for s := range ss.m {
		select {
		case s.ch <- ev:
			continue
		default:
		}
		// Full: drop what is queued (we are the only sender, so draining
		// makes room) and leave one overflow marker.
	drain:
		for {
			select {
			case <-s.ch:
			default:
				break drain
			}
		}
		select {
		case s.ch <- Event{Overflow: true}:
		default:
		}
	}
}

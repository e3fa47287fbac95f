package registry

import "math"

// overlay is an immutable string-keyed map that a write does not copy
// whole: a base map shared by successive snapshots (never modified once
// built) and a small delta of the keys changed since the base was built (a
// nil value: deleted). A write copies the delta; when the delta outgrows
// about the square root of the base (or a few dozen keys), base and delta
// are folded into a new base. Registering or removing one key thus costs
// O(√n) map entries amortized instead of O(n), and a lookup is one map
// lookup while the delta is empty, plus a filter test (and, rarely, a
// lookup in the small delta) otherwise.
type overlay[V any] struct {
	base  map[string]*V
	delta map[string]*V // nil value: deleted from base
	// filter has bit filterHash(k) set for every key k of delta, so that
	// most lookups of a key not in delta skip the delta map.
	filter *[filterWords]uint64
	n      int // live keys
}

const (
	filterWords = 16 // 1024 bits
	// minFold is the delta size below which a write never folds.
	minFold = 32
)

// filterHash is a cheap hash of k (no full pass over long keys): its
// length with a few of its bytes.
func filterHash(k string) uint32 {
	h := uint32(len(k)) * 0x9E3779B1
	if n := len(k); n > 0 {
		h ^= uint32(k[n-1]) | uint32(k[n/2])<<8 | uint32(k[0])<<16
		if n > 2 {
			h ^= uint32(k[n-2])<<24 ^ uint32(k[n/3])<<4
		}
		h *= 0x85EBCA6B
	}
	return h >> 22 // 10 bits
}

func newOverlay[V any]() overlay[V] { return overlay[V]{base: map[string]*V{}} }

// get returns the value of k, or nil.
func (o *overlay[V]) get(k string) *V {
	if o.filter == nil {
		return o.base[k] // no delta: the common case, inlined
	}
	return o.getDelta(k)
}

func (o *overlay[V]) getDelta(k string) *V {
	if h := filterHash(k); o.filter[h>>6]&(1<<(h&63)) != 0 {
		if v, ok := o.delta[k]; ok {
			return v
		}
	}
	return o.base[k]
}

// len is the number of keys.
func (o *overlay[V]) len() int { return o.n }

// all yields every key with its value, in no order.
func (o *overlay[V]) all(yield func(string, *V) bool) {
	for k, v := range o.base {
		if _, ok := o.delta[k]; ok {
			continue
		}
		if !yield(k, v) {
			return
		}
	}
	for k, v := range o.delta {
		if v != nil && !yield(k, v) {
			return
		}
	}
}

// folded returns o with its delta folded into a new base (o itself when
// it has no delta).
func (o *overlay[V]) folded() overlay[V] {
	if o.delta == nil {
		return *o
	}
	base := make(map[string]*V, o.n)
	for k, v := range o.all {
		base[k] = v
	}
	return overlay[V]{base: base, n: o.n}
}

// with returns o with the changes applied (a nil value deletes its key);
// o is not modified. work counts the map entries copied.
func (o *overlay[V]) with(changes map[string]*V, work *int) overlay[V] {
	n := o.n
	for k, v := range changes {
		had := o.get(k) != nil
		switch {
		case had && v == nil:
			n--
		case !had && v != nil:
			n++
		}
	}
	if len(o.delta)+len(changes) > max(minFold, int(math.Sqrt(float64(len(o.base))))) {
		// Fold: a new base with every change applied.
		base := make(map[string]*V, n)
		for k, v := range o.all {
			if _, ch := changes[k]; !ch {
				base[k] = v
			}
		}
		for k, v := range changes {
			if v != nil {
				base[k] = v
			}
		}
		*work += len(o.base) + len(o.delta) + len(changes)
		return overlay[V]{base: base, n: n}
	}
	delta := make(map[string]*V, len(o.delta)+len(changes))
	filter := new([filterWords]uint64)
	if o.filter != nil {
		*filter = *o.filter
	}
	for k, v := range o.delta {
		delta[k] = v
	}
	for k, v := range changes {
		if _, inBase := o.base[k]; v == nil && !inBase {
			delete(delta, k) // added and removed since the fold
			continue
		}
		delta[k] = v
		h := filterHash(k)
		filter[h>>6] |= 1 << (h & 63)
	}
	*work += len(o.delta) + len(changes)
	if len(delta) == 0 {
		return overlay[V]{base: o.base, n: n}
	}
	return overlay[V]{base: o.base, delta: delta, filter: filter, n: n}
}

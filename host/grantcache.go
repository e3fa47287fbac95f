package host

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/registry"
)

// grantCache memoizes the grants of nested calls, caller grants ∩ provider
// grants, so a tool calling tools does not pay abi.Intersect (a map and a
// slice) on every call. Grant slices are never modified once built: agents'
// come from the policy, providers' from their registry record, nested ones
// from this cache; so the address and length of a slice identify its
// contents. Reads are lock-free (copy-on-write map); the cache is cleared
// when it grows past maxGrantCache entries (hot reloads make new records).
type grantCache struct {
	m  atomic.Pointer[map[grantKey]abi.Grants]
	mu sync.Mutex
}

const maxGrantCache = 1024

type grantKey struct {
	caller unsafe.Pointer // address of the caller grants' first element
	n      int
	prov   *registry.ProviderRecord
}

func keyOf(g abi.Grants, p *registry.ProviderRecord) grantKey {
	return grantKey{caller: unsafe.Pointer(unsafe.SliceData(g)), n: len(g), prov: p}
}

// intersect returns caller ∩ p.Grants, cached while reg registers p.
func (c *grantCache) intersect(caller abi.Grants, p *registry.ProviderRecord, reg *registry.Registry) abi.Grants {
	k := keyOf(caller, p)
	if m := c.m.Load(); m != nil {
		if g, ok := (*m)[k]; ok {
			return g
		}
	}
	g := abi.Intersect(caller, p.Grants)
	c.mu.Lock()
	defer c.mu.Unlock()
	if reg != nil && reg.Provider(p.Info.ID) != p {
		// A call of a provider removed or replaced while it ran: its
		// entry, made after forget cleared the record's, would keep
		// the record (and the closed provider's implementation) until
		// the cache is next cleared. The registry changes before
		// forget takes c.mu, so either forget drops an entry made
		// before it or this sees the record gone.
		return g
	}
	old := c.m.Load()
	next := map[grantKey]abi.Grants{}
	if old != nil && len(*old) < maxGrantCache {
		for kk, v := range *old {
			next[kk] = v
		}
	}
	next[k] = g
	c.m.Store(&next)
	return g
}

// forget drops the entries of providers that are no longer registered
// (removed, or replaced by a reload): a key holds its record, and with it
// everything the provider's implementation holds.
func (c *grantCache) forget(gone ...*registry.ProviderRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old == nil {
		return
	}
	next := make(map[grantKey]abi.Grants, len(*old))
	for k, v := range *old {
		keep := true
		for _, p := range gone {
			if p != nil && k.prov == p {
				keep = false
				break
			}
		}
		if keep {
			next[k] = v
		}
	}
	c.m.Store(&next)
}

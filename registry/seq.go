package registry

import "slices"

// seq is an immutable sorted sequence stored in chunks of at most
// maxChunk elements: a write copies the list of chunks and the chunks it
// changes, not every element. Readers walk the chunks in order.
type seq[T any] struct {
	chunks [][]T
	n      int
}

// maxChunk bounds a chunk; a longer one is split. A chunk a write leaves
// shorter than maxChunk/4 is merged into the one before it when they fit.
const maxChunk = 128

// slice returns the elements in a new slice.
func (s seq[T]) slice() []T {
	out := make([]T, 0, s.n)
	for _, c := range s.chunks {
		out = append(out, c...)
	}
	return out
}

// pos is a position in a seq: before chunks[c][off] (off may be the
// chunk's length).
type pos struct{ c, off int }

// seek returns the position of the first element not below key by cmp,
// and whether it is equal to key.
func seek[T, K any](s seq[T], key K, cmp func(T, K) int) (pos, bool) {
	if len(s.chunks) == 0 {
		return pos{}, false
	}
	c, _ := slices.BinarySearchFunc(s.chunks, key, func(ch []T, k K) int { return cmp(ch[len(ch)-1], k) })
	if c == len(s.chunks) {
		return pos{c - 1, len(s.chunks[c-1])}, false
	}
	off, found := slices.BinarySearchFunc(s.chunks[c], key, cmp)
	return pos{c, off}, found
}

// at returns the element at p.
func (s seq[T]) at(p pos) T { return s.chunks[p.c][p.off] }

// patch returns s without the elements at del (ascending) and with ins
// inserted, ins[k] at position at[k] of s (ascending; a deleted element's
// position: ins[k] replaces it). s is not modified; work counts the
// chunk pointers and elements copied.
func (s seq[T]) patch(del []pos, ins []T, at []pos, work *int) seq[T] {
	if len(del) == 0 && len(ins) == 0 {
		return s
	}
	if len(s.chunks) == 0 {
		s = seq[T]{chunks: [][]T{nil}}
	}
	out := seq[T]{chunks: make([][]T, 0, len(s.chunks)+1+len(ins)/maxChunk), n: s.n - len(del) + len(ins)}
	d, k := 0, 0
	for c, ch := range s.chunks {
		d0, k0 := d, k
		for d < len(del) && del[d].c == c {
			d++
		}
		for k < len(ins) && at[k].c == c {
			k++
		}
		if d == d0 && k == k0 {
			out.chunks = append(out.chunks, ch)
			continue
		}
		// The chunk's new elements.
		nc := make([]T, 0, len(ch)-(d-d0)+(k-k0))
		i, dd := 0, d0
		upTo := func(end int) {
			for dd < d && del[dd].off < end {
				nc = append(nc, ch[i:del[dd].off]...)
				i = del[dd].off + 1
				dd++
			}
			nc = append(nc, ch[i:end]...)
			i = end
		}
		for kk := k0; kk < k; kk++ {
			upTo(at[kk].off)
			nc = append(nc, ins[kk])
		}
		upTo(len(ch))
		*work += len(ch) + len(nc)
		switch {
		case len(nc) == 0:
		case len(nc) > maxChunk:
			parts := (len(nc) + maxChunk*3/4 - 1) / (maxChunk * 3 / 4)
			for p := range parts {
				out.chunks = append(out.chunks, slices.Clip(nc[p*len(nc)/parts:(p+1)*len(nc)/parts]))
			}
		case len(nc) < maxChunk/4 && len(out.chunks) > 0 && len(out.chunks[len(out.chunks)-1])+len(nc) <= maxChunk:
			prev := out.chunks[len(out.chunks)-1]
			out.chunks[len(out.chunks)-1] = append(append(make([]T, 0, len(prev)+len(nc)), prev...), nc...)
			*work += len(prev)
		default:
			out.chunks = append(out.chunks, nc)
		}
	}
	*work += len(s.chunks)
	return out
}

// from yields the elements from p on, in order.
func (s seq[T]) from(p pos, yield func(T) bool) {
	for c := p.c; c < len(s.chunks); c++ {
		ch := s.chunks[c]
		if c == p.c {
			ch = ch[min(p.off, len(ch)):]
		}
		for _, x := range ch {
			if !yield(x) {
				return
			}
		}
	}
}

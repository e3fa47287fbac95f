package server

import (
	"context"
	"sync"
)

// coalescer runs a job (aios/registry.refresh's rescan) at most once at a
// time. A request that arrives while it runs waits for that run to end
// and then for one more, shared by every request that arrived meanwhile:
// each answer reflects a run that began after its request arrived (a file
// written just before is seen), and any number of clients asking at once
// cost at most two runs, not one each.
type coalescer struct {
	mu      sync.Mutex
	running bool
	next    *coalescedRun // queued behind the running one
}

type coalescedRun struct {
	done chan struct{}
	n    int
	err  error
}

// do runs job, or joins the run queued behind the one in progress. job
// gets a context without the caller's cancellation (its run may serve
// others); a waiting caller whose ctx ends returns ctx's error.
func (c *coalescer) do(ctx context.Context, job func(context.Context) (int, error)) (int, error) {
	c.mu.Lock()
	if !c.running {
		c.running = true
		c.mu.Unlock()
		n, err := job(context.WithoutCancel(ctx))
		go c.drain(context.WithoutCancel(ctx), job)
		return n, err
	}
	r := c.next
	if r == nil {
		r = &coalescedRun{done: make(chan struct{})}
		c.next = r
	}
	c.mu.Unlock()
	select {
	case <-r.done:
		return r.n, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// drain runs the queued runs, one after another, until none is left.
func (c *coalescer) drain(ctx context.Context, job func(context.Context) (int, error)) {
	for {
		c.mu.Lock()
		r := c.next
		c.next = nil
		if r == nil {
			c.running = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		r.n, r.err = job(ctx)
		close(r.done)
	}
}

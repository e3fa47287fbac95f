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
	// life ends the runs when it ends (the server closing): a run does
	// not end with its caller, but it must not outlive the server.
	life    context.Context
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
// others), ended by c.life; a caller whose ctx ends returns ctx's error
// at once, the caller that started the run too (it waited for the run's
// end), while the run goes on.
func (c *coalescer) do(ctx context.Context, job func(context.Context) (int, error)) (int, error) {
	c.mu.Lock()
	var r *coalescedRun
	if !c.running {
		c.running = true
		c.mu.Unlock()
		r = &coalescedRun{done: make(chan struct{})}
		go func() {
			r.n, r.err = c.run(context.WithoutCancel(ctx), job)
			close(r.done)
			c.drain(context.WithoutCancel(ctx), job)
		}()
	} else {
		if r = c.next; r == nil {
			r = &coalescedRun{done: make(chan struct{})}
			c.next = r
		}
		c.mu.Unlock()
	}
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
		r.n, r.err = c.run(ctx, job)
		close(r.done)
	}
}

// run runs job under ctx, cancelled when c.life ends (with its cause).
func (c *coalescer) run(ctx context.Context, job func(context.Context) (int, error)) (int, error) {
	if c.life == nil {
		return job(ctx)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(c.life, func() { cancel(context.Cause(c.life)) })
	defer stop()
	return job(ctx)
}

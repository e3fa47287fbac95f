package abi

// DeadlineKeeper is an optional interface of a Provider whose Call always
// returns by call.Deadline (plus a small, bounded delay) on its own, because
// its runtime interrupts the guest. The host may then call it on the
// caller's goroutine instead of on a watcher goroutine with a timer, which
// costs more than a whole call of a fast guest. A provider that cannot
// promise this does not implement it (or returns false).
type DeadlineKeeper interface {
	KeepsDeadlines() bool
}

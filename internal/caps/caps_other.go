//go:build !linux

// Package caps keeps the processes a thread starts from inheriting the
// host's Linux capabilities; elsewhere there are none to drop.
package caps

// DropForExec does nothing outside Linux.
func DropForExec() error { return nil }

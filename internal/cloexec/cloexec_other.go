//go:build !unix

package cloexec

// Stray does nothing here: handles are not inherited unless asked for.
func Stray() {}

//go:build !unix

package main

// lockDir does nothing where there is no flock(2).
func lockDir(string) (unlock func(), err error) { return func() {}, nil }

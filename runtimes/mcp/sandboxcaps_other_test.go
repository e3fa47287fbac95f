//go:build !linux

package mcp

// capsHeld: Linux capabilities exist on Linux only.
func capsHeld() string { return "unknown" }

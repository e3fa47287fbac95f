//go:build !linux

package mcp

func selfMark() string           { return "unknown" }
func reachSibling(string) string { return "sibling=unknown" }

//go:build linux && !amd64 && !arm64

package seccomp

// metaSyscalls is empty where Program builds no filter.
var metaSyscalls []uint32

// forkSyscalls is empty where Program builds no filter.
var forkSyscalls []uint32

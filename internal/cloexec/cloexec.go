// Package cloexec marks the descriptors a process inherited without
// close-on-exec so that the programs it starts do not inherit them too.
//
// Go opens its own descriptors close-on-exec, but one the host inherited
// without the flag from whatever started it (a shell's redirection, a
// launcher's leaked file or socket) passes through Go's fork to every
// child besides the descriptors asked for: a Python or JS worker, an MCP
// server, read it past their sandbox (Landlock checks a file when it is
// opened, not an open descriptor). The descriptors a child is given are
// put in place by the fork, which clears the flag on them.
package cloexec

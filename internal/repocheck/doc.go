// Package repocheck holds tests about the repository itself rather than
// about code: what may be committed. It has no code of its own.
package repocheck

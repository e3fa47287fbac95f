// Package fsperm checks that a file the host trusts (a program it runs, a
// key file that decides which signatures count) cannot be changed by
// another account: neither the file nor any folder on its way is writable
// by group or others (a sticky folder such as /tmp excepted), and each is
// owned by root or by this user.
package fsperm

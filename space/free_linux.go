package space

import "syscall"

// availBytes is the free space statfs reports to an unprivileged writer.
// Linux counts blocks in units of the fragment size (f_frsize), which is
// not always the f_bsize it reports (the preferred I/O size): Docker
// Desktop's virtiofs and grpcfuse, some FUSE and network file systems
// report a bsize of 1 MiB over blocks of 4 KiB, and free space read as
// bavail × bsize was 256 times too much, so limits.min_free_bytes never
// held. A file system that leaves frsize unset has it equal to bsize.
func availBytes(st *syscall.Statfs_t) int64 {
	unit := int64(st.Frsize)
	if unit <= 0 {
		unit = int64(st.Bsize)
	}
	return blocksBytes(st.Bavail, unit)
}

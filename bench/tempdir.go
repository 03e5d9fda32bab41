package bench

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// DirEnv names the environment variable that sets where benchmark databases go (default: the
// test's temporary directory). fdatasync means nothing on tmpfs, so that must be a real disk.
const DirEnv = "CAIRN_BENCH_DIR"

// Memory file system magic numbers (statfs f_type).
const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
)

// CheckDiskDir returns an error if dir is on a file system held in memory (tmpfs, ramfs), where
// fdatasync costs nothing and durable-write figures would be meaningless.
func CheckDiskDir(dir string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return err
	}
	if st.Type == tmpfsMagic || st.Type == ramfsMagic {
		return fmt.Errorf("bench: %s is in memory (tmpfs); set %s to a directory on a disk", dir, DirEnv)
	}
	return nil
}

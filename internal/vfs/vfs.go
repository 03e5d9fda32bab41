// Package vfs is the only path from cairn to files: an interface over the file system with an OS
// implementation and a memory implementation that simulates crashes and injects errors.
package vfs

import (
	"errors"
	"io"
	"os"
)

// File is an open file. Implementations are safe for concurrent ReadAt/WriteAt at distinct offsets.
type File interface {
	io.ReaderAt
	io.WriterAt
	// Sync makes every completed write to the file durable (fdatasync on Linux).
	Sync() error
	// Truncate sets the file size to size bytes (growing fills with zeros).
	Truncate(size int64) error
	// Size reports the current file size in bytes.
	Size() (int64, error)
	Close() error
}

// FS opens, creates and removes files. Every method takes slash-free OS paths as produced by
// path/filepath.
type FS interface {
	// OpenFile opens name with os.O_* flags and perm, like os.OpenFile.
	OpenFile(name string, flag int, perm os.FileMode) (File, error)
	// Remove deletes name.
	Remove(name string) error
	// SyncDir makes the directory entries of dir (file creations, removals) durable.
	SyncDir(dir string) error
	// Lock takes an exclusive advisory lock on name (created if missing) without waiting.
	// It returns ErrLocked if another holder has it. Close the returned io.Closer to release.
	Lock(name string) (io.Closer, error)
	// LockShared takes a shared advisory lock on name (which must exist) without waiting: any
	// number of shared holders exclude an exclusive one. It returns ErrLocked while an exclusive
	// holder has it.
	LockShared(name string) (io.Closer, error)
}

// ErrLocked is returned by FS.Lock when another process (or another open handle) holds the lock.
var ErrLocked = errors.New("vfs: file is locked")

package cairn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// dumpState returns every bucket's keys and values and the default key space's (as "") of db,
// and the LSN of the version read.
func dumpState(t *testing.T, db *DB) (bucketState, uint64) {
	t.Helper()
	got := bucketState{"": {}}
	var lsn uint64
	require.NoError(t, db.View(func(tx *Tx) error {
		lsn = tx.LSN()
		for k, v := range tx.Range(nil, nil) {
			got[""][string(k)] = string(v)
		}
		return tx.ForEachBucket(func(name []byte) error {
			b, err := tx.Bucket(name)
			if err != nil {
				return err
			}
			got[string(name)] = map[string]string{}
			for k, v := range b.Range(nil, nil) {
				got[string(name)][string(k)] = string(v)
			}
			return nil
		})
	}))
	return got, lsn
}

// copyRecords copies a Replicate call's records, which are valid only during the call.
func copyRecords(records [][]byte) [][]byte {
	out := make([][]byte, len(records))
	for i, r := range records {
		out[i] = append([]byte(nil), r...)
	}
	return out
}

// TestReplicaFollowsPrimary runs a mixed workload (concurrent writers, buckets made and deleted,
// overflow values, deletes, a compaction) on a primary whose Replicate hook applies every batch
// to a replica, and requires the replica to hold the primary's state at the primary's LSN, also
// after reopening both.
func TestReplicaFollowsPrimary(t *testing.T) {
	replica, _ := openTemp(t, nil)
	var calls, recs int
	var lastLSN uint64
	hook := func(lsn uint64, records [][]byte) error {
		require.Equal(t, lastLSN+1, lsn, "batches in LSN order, no gap")
		calls++
		recs += len(records)
		lastLSN = lsn + uint64(len(records)) - 1
		return replica.ApplyRecords(lsn, copyRecords(records))
	}
	primary, _ := openTemp(t, &Options{Replicate: hook})

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				require.NoError(t, primary.Update(func(tx *Tx) error {
					b, err := tx.CreateBucketIfNotExists(fmt.Appendf(nil, "b%d", g%3))
					if err != nil {
						return err
					}
					if err := b.Put(fmt.Appendf(nil, "g%d-%03d", g, i), make([]byte, 100+i*97%7000)); err != nil {
						return err
					}
					if i%5 == 0 {
						return tx.Put(fmt.Appendf(nil, "main%d", g), fmt.Appendf(nil, "%d", i))
					}
					return nil
				}))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, primary.Update(func(tx *Tx) error {
		if err := tx.DeleteBucket([]byte("b1")); err != nil {
			return err
		}
		return tx.Delete([]byte("main0"))
	}))
	_, err := primary.Compact(context.Background(), nil)
	require.NoError(t, err)
	require.NoError(t, primary.Update(func(tx *Tx) error { return tx.Put([]byte("after"), []byte("compact")) }))

	want, wantLSN := dumpState(t, primary)
	got, gotLSN := dumpState(t, replica)
	require.Equal(t, want, got)
	require.Equal(t, wantLSN, gotLSN, "the replica has the primary's LSNs")
	require.Equal(t, wantLSN, lastLSN)
	require.Less(t, calls, recs, "concurrent commits were replicated in batches")

	primary = reopen(t, primary)
	replica = reopen(t, replica)
	want, wantLSN = dumpState(t, primary)
	got, gotLSN = dumpState(t, replica)
	require.Equal(t, want, got)
	require.Equal(t, wantLSN, gotLSN)
}

// TestRefusedReplicationIsNeverDurable: a batch Replicate refuses fails its commit and the
// database; no reader saw it, and reopening recovers the commits before it and not it.
func TestRefusedReplicationIsNeverDurable(t *testing.T) {
	refuse := errors.New("no quorum")
	var fail bool
	primary, _ := openTemp(t, &Options{Replicate: func(uint64, [][]byte) error {
		if fail {
			return refuse
		}
		return nil
	}})
	putN(t, primary, 0, 10)
	fail = true
	err := primary.Update(func(tx *Tx) error { return tx.Put([]byte("refused"), []byte("x")) })
	require.ErrorIs(t, err, ErrFailed)
	require.ErrorIs(t, err, refuse)
	require.Equal(t, 10, countKeys(t, primary), "the refused commit is not visible")
	err = primary.Update(func(tx *Tx) error { return tx.Put([]byte("later"), []byte("x")) })
	require.ErrorIs(t, err, ErrFailed, "the database stays failed")
	rec := []byte{0x01} // any record: a failed database skips nothing, applies nothing
	require.ErrorIs(t, primary.ApplyRecords(11, [][]byte{rec}), ErrFailed)

	require.ErrorIs(t, primary.Close(), ErrFailed)
	again, err := Open(primary.Path(), nil)
	require.NoError(t, err)
	defer again.Close()
	state, lsn := dumpState(t, again)
	require.Len(t, state[""], 10)
	require.NotContains(t, state[""], "refused")
	require.Equal(t, uint64(10), lsn)
}

// TestCommitVisibleOnlyAfterReplicate holds a batch inside Replicate and checks that readers
// do not see its commit, nor does it return, until Replicate accepted it.
func TestCommitVisibleOnlyAfterReplicate(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	primary, _ := openMem(t, &Options{Replicate: func(uint64, [][]byte) error {
		entered <- struct{}{}
		<-release
		return nil
	}})
	done := make(chan error)
	go func() { done <- primary.Update(func(tx *Tx) error { return tx.Put([]byte("k"), []byte("v")) }) }()
	<-entered
	require.NoError(t, primary.View(func(tx *Tx) error {
		_, err := tx.Get([]byte("k"))
		require.ErrorIs(t, err, ErrNotFound)
		return nil
	}))
	select {
	case err := <-done:
		t.Fatalf("commit returned before its replication: %v", err)
	default:
	}
	close(release)
	require.NoError(t, <-done)
	require.NoError(t, primary.View(func(tx *Tx) error {
		_, err := tx.Get([]byte("k"))
		return err
	}))
}

// TestApplyRecordsSkipsGapsAndDamage: records the replica has are skipped, a gap is refused
// with ErrLSNGap, a damaged record with ErrCorrupt (no panic), and applied records are not
// passed to the replica's own Replicate, while its own commits are.
func TestApplyRecordsSkipsGapsAndDamage(t *testing.T) {
	var log [][]byte
	primary, _ := openMem(t, &Options{Replicate: func(lsn uint64, records [][]byte) error {
		require.Equal(t, uint64(len(log))+1, lsn)
		log = append(log, copyRecords(records)...)
		return nil
	}})
	putN(t, primary, 0, 20)
	require.Len(t, log, 20)

	var chained int
	replica, _ := openMem(t, &Options{Replicate: func(uint64, [][]byte) error { chained++; return nil }})
	require.NoError(t, replica.ApplyRecords(1, log[:5]))
	require.NoError(t, replica.ApplyRecords(1, log[:5]), "applied again: skipped")
	require.NoError(t, replica.ApplyRecords(3, log[2:12]), "overlapping: the new part applied")
	err := replica.ApplyRecords(14, log[13:])
	require.ErrorIs(t, err, ErrLSNGap)
	requireKeyCount(t, replica, 12)

	damaged := append([]byte(nil), log[12]...)
	damaged[len(damaged)-6] = 0xff // a length varint or key byte: either fails to decode or to match
	bad := [][]byte{{}, {0x7f}, damaged[:len(damaged)-3]}
	for _, rec := range bad {
		err := replica.ApplyRecords(13, [][]byte{rec})
		require.ErrorIs(t, err, ErrCorrupt, "record %x", rec)
	}
	requireKeyCount(t, replica, 12)
	require.NoError(t, replica.ApplyRecords(13, log[12:]))
	want, wantLSN := dumpState(t, primary)
	got, gotLSN := dumpState(t, replica)
	require.Equal(t, want, got)
	require.Equal(t, wantLSN, gotLSN)
	require.Zero(t, chained, "applied records are not replicated again")

	require.NoError(t, replica.Update(func(tx *Tx) error { return tx.Put([]byte("local"), nil) }))
	require.Equal(t, 1, chained, "a local write is replicated")
}

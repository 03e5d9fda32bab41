package cairn

// A real-process crash test: the test binary runs itself as a child (TestKillDashNineChild) that
// commits in a loop on a database in a temporary directory and reports each acknowledged commit
// on its stdout, a pipe. The parent kills it with SIGKILL at a random moment, reopens the
// database and checks that every acknowledged commit is there in full, that no transaction is
// partly visible, and that Check finds nothing; then the next child goes on with the same
// database. CI runs a few kills; more with
//
//	go test -run TestKillDashNine -kill.rounds=200 .

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn/internal/killtest"
)

var (
	killRounds = flag.Int("kill.rounds", 5, "SIGKILLs of TestKillDashNine")
	killSeed   = flag.Uint64("kill.seed", 0, "seed of TestKillDashNine (0: from the clock)")
)

// killChildEnv carries "path seed firstID" to the child process.
const killChildEnv = "CAIRN_KILL_CHILD"

// killKey is key j (0..2) of commit id: every commit writes three keys, all or none visible;
// keys 0 and 1 go to the default key space, key 2 to bucket killBucket (killSpace).
func killKey(id uint64, j int) []byte { return fmt.Appendf(nil, "p/%010d/%d", id, j) }

var killBucket = []byte("p")

// killSpace returns where key j of a commit lives: bucket killBucket for j 2, else the default
// key space. A commit thus changes two trees, which must stay atomic.
func killSpace(tx *Tx, j int) (keySpace, error) {
	if j == 2 {
		return spaceOf(tx, killBucket)
	}
	return spaceOf(tx, nil)
}

// killValue is the value of key j of commit id: its size depends on the id (one commit in 20 has
// values of 10 to 50 KB, one in 5 of a few KB), its bytes on the id and j.
func killValue(id uint64, j int) []byte {
	rng := rand.New(rand.NewPCG(id, uint64(j)))
	n := 20 + rng.IntN(200)
	switch {
	case id%20 == 0:
		n = 10000 + rng.IntN(40000)
	case id%5 == 0:
		n = 1000 + rng.IntN(3000)
	}
	v := fmt.Appendf(make([]byte, 0, n), "%d/%d:", id, j)
	for len(v) < n {
		v = append(v, byte(rng.Uint32()))
	}
	return v
}

// killLedger is what the parent learned from the children's reports.
type killLedger struct {
	acked    map[uint64]bool // put acknowledged (or found present after a kill)
	tryDel   map[uint64]bool // delete attempted (reported before it started)
	delAcked map[uint64]bool // delete acknowledged
	maxID    uint64          // the highest id reported
}

func TestKillDashNine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: kills child processes five times")
	}
	t.Parallel()
	seed := *killSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay the workload with -kill.seed=%d; kill times differ)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0x9))
	path := filepath.Join(t.TempDir(), "kill.db")
	l := &killLedger{acked: map[uint64]bool{}, tryDel: map[uint64]bool{}, delAcked: map[uint64]bool{}}
	var early, unreported int
	highest := uint64(0)
	for round := range *killRounds {
		first := max(l.maxID, highest) + 1 // ids of a dead child are never reused
		if runKillChild(t, path, seed+uint64(round), first, rng, l) {
			early++
		}
		n, h := verifyKilled(t, path, l, round)
		unreported, highest = unreported+n, max(highest, h)
	}
	t.Logf("%d SIGKILLs (%d timed from the child's start), %d commits (acknowledged, or found after a kill) "+
		"and %d deletes acknowledged, %d unreported commits found: 0 acknowledged lost, 0 partial, 0 check failures",
		*killRounds, early, len(l.acked), len(l.delAcked), unreported)
}

// runKillChild runs one child from firstID first and kills it: most kills land 0-400 ms after
// the first acknowledgement, while commits flow, one in ten 0-150 ms after the start (during
// Open and recovery, or the first commits). It reports whether the kill was an early one.
func runKillChild(t *testing.T, path string, seed, first uint64, rng *rand.Rand, l *killLedger) bool {
	t.Helper()
	return killtest.Run(t, rng, killtest.Child{
		Test:       "TestKillDashNineChild",
		Env:        fmt.Sprintf("%s=%s %d %d", killChildEnv, path, seed, first),
		EarlyOneIn: 10, EarlyMax: 150 * time.Millisecond, LateMax: 400 * time.Millisecond,
		Deadline: 30 * time.Second,
	}, func(line string) { l.record(t, line) })
}

// record parses one report line of the child.
func (l *killLedger) record(t *testing.T, line string) {
	kind, idText, ok := strings.Cut(line, " ")
	id, err := strconv.ParseUint(idText, 10, 64)
	require.True(t, ok && err == nil, "bad report %q", line)
	switch kind {
	case "ack":
		l.acked[id] = true
	case "try-del":
		l.tryDel[id] = true
	case "del":
		l.delAcked[id] = true
	default:
		require.Failf(t, "bad report", "%q", line)
	}
	l.maxID = max(l.maxID, id)
}

// verifyKilled reopens path and checks it against l: every acknowledged commit present in full
// unless a delete of it was attempted, every acknowledged delete done, every commit all or
// nothing with the right values, and Check clean. It returns the number of commits present that
// were never reported (durable, but the child died before it could write the report) and the
// highest id present.
func verifyKilled(t *testing.T, path string, l *killLedger, round int) (int, uint64) {
	t.Helper()
	db, err := Open(path, nil)
	require.NoError(t, err, "round %d: reopen after SIGKILL", round)
	defer func() { require.NoError(t, db.Close()) }()
	keys := map[uint64]int{}
	count := func(k, v []byte) {
		var id uint64
		var j int
		_, err := fmt.Sscanf(string(k), "p/%010d/%d", &id, &j)
		require.NoError(t, err, "key %q", k)
		require.True(t, bytes.Equal(killValue(id, j), v), "round %d: commit %d key %d: wrong value", round, id, j)
		keys[id]++
	}
	require.NoError(t, db.View(func(tx *Tx) error {
		for k, v := range tx.Prefix([]byte("p/")) {
			count(k, v)
		}
		b, err := tx.Bucket(killBucket)
		if errors.Is(err, ErrBucketNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		for k, v := range b.Prefix([]byte("p/")) {
			count(k, v)
		}
		return tx.Err()
	}))
	unreported, highest := 0, uint64(0)
	for id, n := range keys {
		highest = max(highest, id)
		require.Equal(t, 3, n, "round %d: commit %d partly visible", round, id)
		require.False(t, l.delAcked[id], "round %d: acknowledged delete of commit %d undone", round, id)
		if !l.acked[id] {
			unreported++
			l.acked[id] = true // settled: it must stay from now on
		}
	}
	for id := range l.acked {
		if !l.tryDel[id] {
			require.Equal(t, 3, keys[id], "round %d: acknowledged commit %d lost", round, id)
		}
	}
	require.NoError(t, db.Check(), "round %d", round)
	return unreported, highest
}

// TestKillDashNineChild is the child process of TestKillDashNine; run alone, it skips.
func TestKillDashNineChild(t *testing.T) {
	spec := os.Getenv(killChildEnv)
	if spec == "" {
		t.Skip("the child process of TestKillDashNine")
	}
	var path string
	var seed, first uint64
	_, err := fmt.Sscanf(spec, "%s %d %d", &path, &seed, &first)
	require.NoError(t, err)
	go func() { // the parent went away: stop
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	time.AfterFunc(2*time.Minute, func() { os.Exit(4) })
	db, err := Open(path, &Options{CheckpointBytes: 256 << 10, CacheBytes: 1 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: open:", err)
		os.Exit(2)
	}
	var out sync.Mutex
	report := func(kind string, id uint64) {
		out.Lock()
		defer out.Unlock()
		fmt.Fprintf(os.Stdout, "%s %d\n", kind, id) // one write(2) on the pipe
	}
	var nextID atomic.Uint64
	nextID.Store(first)
	pool := &killPool{ids: presentIDs(db)}
	for w := range 4 {
		go killChildWriter(db, rand.New(rand.NewPCG(seed, uint64(w))), &nextID, pool, report)
	}
	select {} // until killed
}

// killPool holds the ids present in the database that a child may delete: those it found at its
// start and those it committed. Deletes keep the database at a few thousand commits, so that
// long runs do not slow down as it grows.
type killPool struct {
	mu  sync.Mutex
	ids []uint64
}

func (p *killPool) add(id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids = append(p.ids, id)
}

// take removes and returns a random id, or 0; it deletes more often when the pool is large.
func (p *killPool) take(rng *rand.Rand) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 || rng.IntN(100) >= min(15+len(p.ids)/40, 60) {
		return 0
	}
	i := rng.IntN(len(p.ids))
	id := p.ids[i]
	p.ids[i] = p.ids[len(p.ids)-1]
	p.ids = p.ids[:len(p.ids)-1]
	return id
}

// presentIDs returns the ids of the commits in db.
func presentIDs(db *DB) []uint64 {
	var ids []uint64
	_ = db.View(func(tx *Tx) error {
		for k := range tx.Prefix([]byte("p/")) {
			var id uint64
			if _, err := fmt.Sscanf(string(k), "p/%010d/0", &id); err == nil {
				ids = append(ids, id)
			}
		}
		return nil
	})
	return ids
}

// killChildWriter commits, deletes and checkpoints forever; any error ends the process. Each
// report is written after the call returned (a delete is also announced before it starts).
func killChildWriter(db *DB, rng *rand.Rand, nextID *atomic.Uint64, pool *killPool, report func(string, uint64)) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	keys := func(id uint64, put bool) func(tx *Tx) error {
		return func(tx *Tx) error {
			for j := range 3 {
				space, err := killSpace(tx, j)
				if err != nil {
					return err
				}
				if put {
					err = space.Put(killKey(id, j), killValue(id, j))
				} else {
					err = space.Delete(killKey(id, j))
				}
				if err != nil {
					return err
				}
			}
			return nil
		}
	}
	for {
		if rng.IntN(100) < 2 {
			if err := db.Checkpoint(context.Background()); err != nil {
				fail(err)
			}
			continue
		}
		if id := pool.take(rng); id != 0 {
			report("try-del", id)
			if err := db.Update(keys(id, false)); err != nil {
				fail(err)
			}
			report("del", id)
			continue
		}
		id := nextID.Add(1) - 1
		if err := db.Update(keys(id, true)); err != nil {
			fail(err)
		}
		report("ack", id)
		pool.add(id)
	}
}

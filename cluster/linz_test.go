package cluster

// Linearizability, checked as Jepsen does: concurrent clients read, write and compare-and-set a
// few keys while a nemesis kills, restarts and partitions nodes (faultnet_test.go), and
// porcupine checks the recorded history against a sequential key-value model. Invariants of the
// history:
//   - An operation is recorded with its call time before the first call into the node and its
//     return time after the last; times come from one monotonic clock.
//   - An operation known to have had no effect (a *NotLeaderError from Update or View before
//     anything ran, a read that failed) is left out: it is as if it never happened.
//   - A write whose outcome is unknown (any other error: cairn.ErrFailed when the leader lost its
//     role while replicating, ErrClosed when the node was killed under it) is recorded with an
//     unknown output and a return time after every other event, so porcupine may place it
//     anywhere after its call, including after everything (not applied); the client then goes on
//     under a new client ID, as a Jepsen process does after an indeterminate operation.
//   - Only linearizable reads (Node.View) enter the history; a failed compare-and-set (the
//     value read in the write transaction differed) is a read too, which Node.Update returns
//     only once it confirmed what the transaction read (else a *NotLeaderError: no effect).
//
// Modes: `go test ./cluster -run TestLinearizable` runs one short seed; the flags -linz.runs,
// -linz.seed and -linz.dur run many (docs/CLUSTER.md, "Tested").

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"

	"github.com/cairndb/cairn"
)

var (
	linzRuns = flag.Int("linz.runs", 0, "TestLinearizable: number of runs (0: the short default)")
	linzSeed = flag.Uint64("linz.seed", 0, "TestLinearizable: seed of the first run (0: the default)")
	linzDur  = flag.Duration("linz.dur", 0, "TestLinearizable: workload duration of each run (0: default)")
)

// kvInput is an operation of the model: a get, put or cas of key.
type kvInput struct {
	op    string // "get", "put", "cas"
	key   string
	value string // put, cas: the value written
	old   string // cas: the value expected ("" is absent)
}

// kvOutput is an operation's result: the value read (get), whether the cas wrote (cas), or
// unknown (a write whose outcome is indeterminate).
type kvOutput struct {
	value   string
	ok      bool
	unknown bool
}

// kvModel is the sequential specification of a key-value store with compare-and-set,
// partitioned by key: each partition's state is the key's value ("" is absent).
var kvModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, op := range history {
			k := op.Input.(kvInput).key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		slices.Sort(keys)
		var out [][]porcupine.Operation
		for _, k := range keys {
			out = append(out, byKey[k])
		}
		return out
	},
	Init: func() any { return "" },
	Step: func(state, input, output any) (bool, any) {
		st, in, out := state.(string), input.(kvInput), output.(kvOutput)
		switch in.op {
		case "get":
			return out.unknown || out.value == st, st
		case "put":
			return true, in.value
		case "cas":
			switch {
			case out.unknown: // applied if linearized where it matches
				if st == in.old {
					return true, in.value
				}
				return true, st
			case out.ok:
				return st == in.old, in.value
			default:
				return st != in.old, st
			}
		}
		return false, st
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(kvInput), output.(kvOutput)
		res := ""
		switch {
		case out.unknown:
			res = "unknown"
		case in.op == "get":
			res = fmt.Sprintf("%q", out.value)
		default:
			res = fmt.Sprint(out.ok)
		}
		switch in.op {
		case "get":
			return fmt.Sprintf("get(%s) -> %s", in.key, res)
		case "put":
			return fmt.Sprintf("put(%s, %q) -> %s", in.key, in.value, res)
		default:
			return fmt.Sprintf("cas(%s, %q, %q) -> %s", in.key, in.old, in.value, res)
		}
	},
	DescribeState: func(state any) string { return fmt.Sprintf("%q", state) },
}

// history records the operations of a run.
type history struct {
	start   time.Time
	mu      sync.Mutex
	ops     []porcupine.Operation
	clients atomic.Int64 // client IDs handed out
}

// now returns the time since the run began, in nanoseconds.
func (h *history) now() int64 { return int64(time.Since(h.start)) }

func (h *history) add(client int, in kvInput, out kvOutput, call, ret int64) {
	h.mu.Lock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret})
	h.mu.Unlock()
}

// finish returns the history, the unknown operations returning after every other event.
func (h *history) finish() []porcupine.Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	var end int64
	for _, op := range h.ops {
		if !op.Output.(kvOutput).unknown {
			end = max(end, op.Return)
		}
		end = max(end, op.Call)
	}
	ops := slices.Clone(h.ops)
	for i := range ops {
		if ops[i].Output.(kvOutput).unknown {
			ops[i].Return = end + 1
		}
	}
	return ops
}

// errCASMismatch is the error a compare-and-set's transaction returns when the value differs.
var errCASMismatch = errors.New("cas: value differs")

// getKey returns key's value in tx, "" if absent.
func getKey(tx *cairn.Tx, key string) (string, error) {
	v, err := tx.Get([]byte(key))
	if errors.Is(err, cairn.ErrNotFound) {
		return "", nil
	}
	return string(v), err
}

// linzClient is one client of the workload.
type linzClient struct {
	tc   *testCluster
	h    *history
	rng  *rand.Rand
	id   int               // its current client ID in the history
	node string            // the node it talks to
	last map[string]string // the value it last saw of each key (the cas's expectation)
	seq  int
}

// linzKeys are the keys of the workload: few, so that operations contend.
var linzKeys = []string{"a", "b", "c"}

// redirect makes the client talk to the leader err names, or to a random node.
func (c *linzClient) redirect(err error) {
	var nl *NotLeaderError
	if errors.As(err, &nl) && nl.LeaderID != "" && nl.LeaderID != c.node {
		c.node = nl.LeaderID
		return
	}
	c.node = c.tc.ids[c.rng.IntN(len(c.tc.ids))]
}

// definitelyNot reports whether err of Update or View means the call had no effect.
func definitelyNot(err error) bool {
	return errors.Is(err, ErrNotLeader) && !errors.Is(err, cairn.ErrFailed)
}

// step does one operation.
func (c *linzClient) step() {
	n := c.tc.node(c.node)
	if n == nil {
		c.redirect(nil)
		time.Sleep(time.Millisecond)
		return
	}
	key := linzKeys[c.rng.IntN(len(linzKeys))]
	switch c.rng.IntN(3) {
	case 0:
		var v string
		call := c.h.now()
		err := n.View(func(tx *cairn.Tx) error {
			var err error
			v, err = getKey(tx, key)
			return err
		})
		ret := c.h.now()
		if err != nil {
			c.redirect(err) // a read that failed had no effect
			return
		}
		c.h.add(c.id, kvInput{op: "get", key: key}, kvOutput{value: v}, call, ret)
		c.last[key] = v
	case 1:
		c.seq++
		v := fmt.Sprintf("%d.%d", c.id, c.seq)
		call := c.h.now()
		err := n.Update(func(tx *cairn.Tx) error { return tx.Put([]byte(key), []byte(v)) })
		c.write(err, kvInput{op: "put", key: key, value: v}, call, kvOutput{ok: true})
	default:
		c.seq++
		in := kvInput{op: "cas", key: key, value: fmt.Sprintf("%d.%d", c.id, c.seq), old: c.last[key]}
		call := c.h.now()
		var cur string
		err := n.Update(func(tx *cairn.Tx) error {
			var err error
			cur, err = getKey(tx, key)
			if err != nil {
				return err
			}
			if cur != in.old {
				return errCASMismatch
			}
			return tx.Put([]byte(key), []byte(in.value))
		})
		if errors.Is(err, errCASMismatch) {
			// Node.Update returns fn's error once what fn read is confirmed committed.
			c.h.add(c.id, in, kvOutput{ok: false}, call, c.h.now())
			c.last[key] = cur
			return
		}
		c.write(err, in, call, kvOutput{ok: true})
	}
}

// write records a put or cas that returned err.
func (c *linzClient) write(err error, in kvInput, call int64, ok kvOutput) {
	ret := c.h.now()
	switch {
	case err == nil:
		c.h.add(c.id, in, ok, call, ret)
		c.last[in.key] = in.value
	case definitelyNot(err):
		c.redirect(err)
	default:
		c.h.add(c.id, in, kvOutput{unknown: true}, call, ret)
		c.id = int(c.h.clients.Add(1)) - 1 // an indeterminate op: go on as a new process
		c.redirect(err)
	}
}

// nemesis injects one fault, chosen by rng, into tc and net; down is the node it keeps
// stopped ("" if none).
func nemesis(t *testing.T, tc *testCluster, net *faultNet, rng *rand.Rand, down *string) string {
	leader := ""
	for _, n := range tc.running() {
		if n.IsLeader() {
			leader = n.cfg.NodeID
		}
	}
	pick := func() string { return tc.ids[rng.IntN(len(tc.ids))] }
	others := func(id string) []string {
		var out []string
		for _, o := range tc.ids {
			if o != id {
				out = append(out, o)
			}
		}
		return out
	}
	victim := leader
	if victim == "" || rng.IntN(2) == 0 {
		victim = pick()
	}
	switch r := rng.IntN(10); {
	case r < 2:
		if *down != "" {
			return "kill: skipped, " + *down + " is down"
		}
		*down = victim
		tc.stop(victim)
		return "kill " + victim
	case r < 4:
		if *down == "" {
			return "restart: none down"
		}
		id := *down
		*down = ""
		tc.start(id, false)
		return "restart " + id
	case r < 5:
		net.partition([]string{victim}, others(victim))
		return "isolate " + victim
	case r < 6:
		net.block(others(victim), []string{victim})
		return "one-way: nothing reaches " + victim
	case r < 7:
		o := others(victim)[rng.IntN(len(tc.ids)-1)]
		net.block([]string{victim}, []string{o})
		return "one-way: " + victim + " cannot reach " + o
	case r < 8:
		d := time.Duration(1+rng.IntN(30)) * time.Millisecond
		net.setDelay(d)
		return fmt.Sprint("delay up to ", d)
	default:
		net.heal()
		return "heal"
	}
}

// quiet silences the nodes' logs (the nemesis makes Raft log an error per dropped message).
func quiet(c *Config) { c.Logger = hclog.NewNullLogger() }

// runLinearizable runs the workload and nemesis of seed for dur and checks the history; it
// returns porcupine's result.
func runLinearizable(t *testing.T, seed uint64, dur time.Duration) porcupine.CheckResult {
	t.Logf("seed %d (rerun: go test ./cluster -run 'TestLinearizable$' -linz.seed %d -linz.runs 1 -linz.dur %v)", seed, seed, dur)
	net := newFaultNet()
	tc := newWrappedTestCluster(t, 3, quiet, func(id string, tr *raft.InmemTransport) raft.Transport {
		return &faultTransport{id: id, inner: tr, net: net}
	})
	h := &history{start: time.Now()}
	const clients = 4
	h.clients.Store(clients)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := range clients {
		c := &linzClient{tc: tc, h: h, rng: rand.New(rand.NewPCG(seed, uint64(i)+1)), id: i,
			node: tc.ids[i%len(tc.ids)], last: map[string]string{}}
		wg.Go(func() {
			for !stop.Load() {
				c.step()
				time.Sleep(time.Duration(c.rng.IntN(2000)) * time.Microsecond)
			}
		})
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	down := ""
	var faults []string
	for deadline := time.Now().Add(dur); time.Now().Before(deadline); {
		time.Sleep(time.Duration(100+rng.IntN(300)) * time.Millisecond)
		faults = append(faults, nemesis(t, tc, net, rng, &down))
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("nemesis: %v", faults)

	// Heal, restart, and read every key on the leader: the final state enters the history.
	net.heal()
	if down != "" {
		tc.start(down, false)
	}
	final := int(h.clients.Add(1)) - 1
	for _, key := range linzKeys {
		deadline := time.Now().Add(30 * time.Second)
		for {
			leader := tc.leader()
			var v string
			call := h.now()
			err := leader.View(func(tx *cairn.Tx) error {
				var err error
				v, err = getKey(tx, key)
				return err
			})
			if err == nil {
				h.add(final, kvInput{op: "get", key: key}, kvOutput{value: v}, call, h.now())
				break
			}
			require.True(t, time.Now().Before(deadline), "no final read of %s: %v", key, err)
			time.Sleep(10 * time.Millisecond)
		}
	}
	// Every node converges to the leader's state, and none stopped on an error.
	leader := tc.leader()
	lsn := leader.LastLSN()
	want := state(t, leader, lsn)
	for _, n := range tc.running() {
		require.Equal(t, want, state(t, n, lsn), "node %s (seed %d)", n.cfg.NodeID, seed)
		require.NoError(t, n.Err(), "node %s stopped (seed %d)", n.cfg.NodeID, seed)
	}

	ops := h.finish()
	var unknown, reads, writes int
	for _, op := range ops {
		switch {
		case op.Output.(kvOutput).unknown:
			unknown++
		case op.Input.(kvInput).op == "get":
			reads++
		default:
			writes++
		}
	}
	res, info := porcupine.CheckOperationsVerbose(kvModel, ops, time.Minute)
	t.Logf("seed %d: %d operations (%d reads, %d writes and cas, %d unknown): %s",
		seed, len(ops), reads, writes, unknown, res)
	if res == porcupine.Illegal {
		dir, err := os.MkdirTemp("", "cairn-linz-")
		require.NoError(t, err)
		path := filepath.Join(dir, fmt.Sprintf("seed-%d.html", seed))
		require.NoError(t, porcupine.VisualizePath(kvModel, info, path))
		t.Errorf("seed %d: history not linearizable; visualization: %s", seed, path)
	}
	return res
}

// TestLinearizable runs the workload under the nemesis and checks linearizability: by default
// one short run; -linz.runs N runs N seeds from -linz.seed (default: the time) for -linz.dur
// each.
func TestLinearizable(t *testing.T) {
	runs, seed, dur := *linzRuns, *linzSeed, *linzDur
	if runs == 0 {
		runs = 1
		if seed == 0 {
			seed = 1
		}
	}
	if seed == 0 {
		seed = uint64(time.Now().UnixNano() % 1_000_000)
	}
	if dur == 0 {
		dur = 3 * time.Second
		if testing.Short() {
			dur = time.Second
		}
	}
	var unknown int
	for i := range runs {
		s := seed + uint64(i)
		ok := t.Run(fmt.Sprintf("seed=%d", s), func(t *testing.T) {
			if runLinearizable(t, s, dur) == porcupine.Unknown {
				unknown++
			}
		})
		if !ok {
			t.Logf("run %d of %d failed: seed %d", i+1, runs, s)
		}
	}
	if unknown > 0 {
		t.Logf("%d of %d runs not decided by porcupine within its timeout", unknown, runs)
	}
}

// TestLinearizableCheckerRejects shows that the checker can fail: a real history of the
// workload is linearizable, and the same history with one read made stale (it returns a value
// that a write acknowledged before the read began had overwritten) is not. It also checks the
// model's handling of unknown outcomes on small histories.
func TestLinearizableCheckerRejects(t *testing.T) {
	net := newFaultNet()
	tc := newWrappedTestCluster(t, 3, nil, func(id string, tr *raft.InmemTransport) raft.Transport {
		return &faultTransport{id: id, inner: tr, net: net}
	})
	h := &history{start: time.Now()}
	h.clients.Store(2)
	var wg sync.WaitGroup
	for i := range 2 {
		c := &linzClient{tc: tc, h: h, rng: rand.New(rand.NewPCG(7, uint64(i))), id: i,
			node: tc.leader().cfg.NodeID, last: map[string]string{}}
		wg.Go(func() {
			for range 150 {
				c.step()
			}
		})
	}
	wg.Wait()
	ops := h.finish()
	require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(kvModel, ops, time.Minute))

	// Find writes w1 then w2 of a key (w2 called after w1 returned) and a read called after w2
	// returned; make the read return w1's value, which no write puts back (values are unique).
	stale := -1
	var staleValue string
	for r, rd := range ops {
		in := rd.Input.(kvInput)
		if in.op != "get" {
			continue
		}
		for _, w2 := range ops {
			in2, out2 := w2.Input.(kvInput), w2.Output.(kvOutput)
			if in2.key != in.key || in2.op == "get" || !out2.ok || w2.Return >= rd.Call {
				continue
			}
			for _, w1 := range ops {
				in1, out1 := w1.Input.(kvInput), w1.Output.(kvOutput)
				if in1.key == in.key && in1.op != "get" && out1.ok && w1.Return < w2.Call {
					stale, staleValue = r, in1.value
				}
			}
		}
		if stale >= 0 {
			break
		}
	}
	require.GreaterOrEqual(t, stale, 0, "no read after two writes in %d operations", len(ops))
	ops[stale].Output = kvOutput{value: staleValue}
	res, info := porcupine.CheckOperationsVerbose(kvModel, ops, time.Minute)
	require.Equal(t, porcupine.Illegal, res, "a stale read passed the checker")
	require.NoError(t, porcupine.VisualizePath(kvModel, info, filepath.Join(t.TempDir(), "stale.html")))

	// Unknown outcomes: a put whose outcome is unknown may be seen or not, before or after
	// later writes; a read may not see it before it was called.
	op := func(client int, in kvInput, out kvOutput, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret}
	}
	end := int64(100)
	unknownPut := op(0, kvInput{op: "put", key: "k", value: "x"}, kvOutput{unknown: true}, 10, end)
	for _, tt := range []struct {
		name string
		ops  []porcupine.Operation
		want porcupine.CheckResult
	}{
		{"unknown put seen", []porcupine.Operation{unknownPut,
			op(1, kvInput{op: "get", key: "k"}, kvOutput{value: "x"}, 20, 30)}, porcupine.Ok},
		{"unknown put not seen", []porcupine.Operation{unknownPut,
			op(1, kvInput{op: "get", key: "k"}, kvOutput{value: ""}, 20, 30)}, porcupine.Ok},
		{"unknown put seen, then not", []porcupine.Operation{unknownPut,
			op(1, kvInput{op: "get", key: "k"}, kvOutput{value: "x"}, 20, 30),
			op(1, kvInput{op: "get", key: "k"}, kvOutput{value: ""}, 40, 50)}, porcupine.Illegal},
		{"unknown put seen before its call", []porcupine.Operation{
			op(1, kvInput{op: "get", key: "k"}, kvOutput{value: "x"}, 0, 5), unknownPut}, porcupine.Illegal},
		{"unknown cas applies where it matches", []porcupine.Operation{
			op(1, kvInput{op: "put", key: "k", value: "y"}, kvOutput{ok: true}, 0, 5),
			op(0, kvInput{op: "cas", key: "k", old: "y", value: "z"}, kvOutput{unknown: true}, 10, end),
			op(1, kvInput{op: "get", key: "k"}, kvOutput{value: "z"}, 20, 30)}, porcupine.Ok},
		{"unknown cas cannot apply on a mismatch", []porcupine.Operation{
			op(1, kvInput{op: "put", key: "k", value: "y"}, kvOutput{ok: true}, 0, 5),
			op(0, kvInput{op: "cas", key: "k", old: "w", value: "z"}, kvOutput{unknown: true}, 10, end),
			op(1, kvInput{op: "get", key: "k"}, kvOutput{value: "z"}, 20, 30)}, porcupine.Illegal},
	} {
		require.Equal(t, tt.want, porcupine.CheckOperationsTimeout(kvModel, tt.ops, time.Minute), tt.name)
	}
}

// TestUpdateConfirmsWhatFnRead: a transaction on the leader sees a commit still being
// replicated; when fn returns an error that tells what it read (a compare-and-set's mismatch),
// Update must not return it before that commit is committed by Raft. Here the leader is cut
// off, so the commit never is: Update returns a *NotLeaderError, never fn's error naming the
// value that no other node ever held.
func TestUpdateConfirmsWhatFnRead(t *testing.T) {
	net := newFaultNet()
	tc := newWrappedTestCluster(t, 3, quiet, func(id string, tr *raft.InmemTransport) raft.Transport {
		return &faultTransport{id: id, inner: tr, net: net}
	})
	leader := tc.leader()
	require.NoError(t, put(leader, "k", "v1"))
	var others []string
	for _, f := range tc.followers(leader) {
		others = append(others, f.cfg.NodeID)
	}
	net.partition([]string{leader.cfg.NodeID}, others)
	done := make(chan error, 1)
	go func() { done <- put(leader, "k", "v2") }() // held, never committed
	errSaw := errors.New("saw")
	var sawV2, reads int
	for {
		select {
		case err := <-done:
			require.Error(t, err, "a write of a leader cut off succeeded")
			require.Zero(t, sawV2, "Update returned fn's error from a read of an uncommitted value")
			require.Positive(t, reads)
			net.heal()
			require.Equal(t, "v1", state(t, tc.leader(), tc.leader().LastLSN())["k"])
			return
		default:
		}
		var v string
		err := leader.Update(func(tx *cairn.Tx) error {
			var err error
			v, err = getKey(tx, "k")
			if err != nil {
				return err
			}
			return fmt.Errorf("%w %s", errSaw, v)
		})
		reads++
		if errors.Is(err, errSaw) && v == "v2" {
			sawV2++
		}
		if !errors.Is(err, errSaw) {
			require.ErrorIs(t, err, ErrNotLeader)
		}
	}
}

// TestRaftWaitsEndAtShutdown: raft v1.8.0 may queue a VerifyLeader, Apply or Barrier request
// after it shut down (their channels are buffered) and never answer it; the node's waits must
// end all the same. Before Node.await, a linearizable read racing with Close hung
// TestLinearizable (seed 1008).
func TestRaftWaitsEndAtShutdown(t *testing.T) {
	tc := newTestCluster(t, 3, quiet)
	leader := tc.leader()
	require.NoError(t, leader.verifyLeader())
	require.NoError(t, leader.raft.Shutdown().Error())
	done := make(chan error, 1)
	go func() {
		// Each raw Future.Error() would hang with probability 1/2 (a select between the
		// closed shutdown channel and the buffered request channel).
		for range 20 {
			for _, f := range []raft.Future{leader.raft.VerifyLeader(), leader.raft.Barrier(0),
				leader.raft.Apply(encodeEntry(1000, [][]byte{{1}}), 0)} {
				if err := leader.await(f); !errors.Is(err, raft.ErrRaftShutdown) {
					done <- fmt.Errorf("await: %v, want ErrRaftShutdown", err)
					return
				}
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("a wait for Raft hangs after its shutdown")
	}
}

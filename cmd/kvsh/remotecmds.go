package main

// The commands of a remote session (kvsh -connect URL), and .cluster and .consistency. A remote
// session runs the commands of remoteCommands; any other command, and SQL, answers that it needs
// a local database (errNeedsLocal), since cairnd's HTTP API has no buckets, transactions, SQL
// or files to give them.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// memberTimeout bounds how long .cluster waits for the status of each member.
const memberTimeout = 2 * time.Second

// remoteCommands maps the names of the commands a remote session runs to their remote versions
// (or to the local ones, for those that need no database). Filled by init: cmdHelp refers to the
// command table.
var remoteCommands map[string]func(sh *shell, ctx context.Context, args [][]byte) error

func init() {
	remoteCommands = map[string]func(sh *shell, ctx context.Context, args [][]byte) error{
		"get": remoteGet, "put": remotePut, "del": remoteDel, "scan": remoteScan, "range": remoteScan,
		"prefix": remotePrefix, "first": remoteFirst, "last": remoteLast, "count": remoteCount,
		".mode": cmdMode, ".timer": cmdTimer, ".quiet": cmdQuiet, ".cluster": cmdCluster,
		".consistency": cmdConsistency, "help": cmdHelp, "quit": cmdQuit, "exit": cmdQuit,
	}
}

// errNeedsLocal is the error of a command (or "SQL") that a remote session cannot run.
func (sh *shell) errNeedsLocal(what string) error {
	return fmt.Errorf("%s needs a local database (kvsh PATH): this session is connected to %s", what, sh.remote.base)
}

// errNotCluster is the error of .cluster and .consistency in a session on a local database.
func errNotCluster(name string) error {
	return fmt.Errorf("not a cluster connection: %s works in sessions started with kvsh -connect URL", name)
}

// remoteGet prints the value of a key.
func remoteGet(sh *shell, ctx context.Context, args [][]byte) error {
	v, found, err := sh.remote.get(ctx, args[0])
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("not found: %s", formatBytes(args[0]))
	}
	return printValue(sh.out, sh.mode, args[0], v)
}

// remotePut sets a key (on the leader, through a redirect if the node is a follower).
func remotePut(sh *shell, ctx context.Context, args [][]byte) error {
	value := args[1]
	if value == nil {
		value = []byte{} // an empty value, not a delete
	}
	return sh.remote.put(ctx, args[0], value)
}

// remoteDel deletes a key; a missing key is not an error.
func remoteDel(sh *shell, ctx context.Context, args [][]byte) error {
	return sh.remote.put(ctx, args[0], nil)
}

// remoteScan lists the keys in [START, END) with their values.
func remoteScan(sh *shell, ctx context.Context, args [][]byte) error {
	var start, end []byte
	if len(args) > 0 {
		start = args[0]
	}
	if len(args) > 1 {
		end = args[1]
	}
	return sh.remoteList(ctx, nil, start, end)
}

// remotePrefix lists the keys starting with a prefix with their values.
func remotePrefix(sh *shell, ctx context.Context, args [][]byte) error {
	return sh.remoteList(ctx, args[0], nil, nil)
}

// remoteList prints the pairs of a remote scan in the output mode, streaming them.
func (sh *shell) remoteList(ctx context.Context, prefix, start, end []byte) error {
	p := newPairPrinter(sh.out, sh.mode)
	defer p.end()
	return sh.remote.scan(ctx, prefix, start, end, 0, p.pair)
}

// remoteFirst prints the first key (starting with a prefix) with its value.
func remoteFirst(sh *shell, ctx context.Context, args [][]byte) error {
	return sh.remoteOne(ctx, args, 1)
}

// remoteLast prints the last key (starting with a prefix) with its value. The HTTP API scans
// forward only, so it reads the whole range.
func remoteLast(sh *shell, ctx context.Context, args [][]byte) error {
	return sh.remoteOne(ctx, args, 0)
}

// remoteOne prints the last pair of a scan of the prefix in args (if any) reading at most limit
// pairs (0: all), or says there is none.
func (sh *shell) remoteOne(ctx context.Context, args [][]byte, limit int) error {
	var prefix, k, v []byte
	if len(args) > 0 {
		prefix = args[0]
	}
	err := sh.remote.scan(ctx, prefix, nil, nil, limit, func(key, value []byte) error {
		k, v = key, value
		return nil
	})
	switch {
	case err != nil:
		return err
	case k == nil && len(args) > 0:
		return fmt.Errorf("no key starts with %s", formatBytes(args[0]))
	case k == nil:
		return errors.New("the database is empty")
	}
	p := newPairPrinter(sh.out, sh.mode)
	err = p.pair(k, v)
	p.end()
	return err
}

// remoteCount counts the keys (starting with a prefix), reading them through the scan.
func remoteCount(sh *shell, ctx context.Context, args [][]byte) error {
	var prefix []byte
	if len(args) > 0 {
		prefix = args[0]
	}
	n := 0
	if err := sh.remote.scan(ctx, prefix, nil, nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		return err
	}
	fmt.Fprintln(sh.out, n)
	return nil
}

// cmdConsistency sets (or prints) the consistency of a remote session's reads: linearizable
// (the default), leader, or follower with an optional bound on staleness.
func cmdConsistency(sh *shell, _ context.Context, args [][]byte) error {
	r := sh.remote
	if r == nil {
		return errNotCluster(".consistency")
	}
	if len(args) == 0 {
		fmt.Fprintln(sh.out, r.describeConsistency())
		return nil
	}
	usage := errors.New("usage: .consistency [linearizable|leader|follower [MAX_STALENESS]]")
	var staleness time.Duration
	switch c := string(args[0]); {
	case c == consistencyFollower && len(args) == 2:
		d, err := time.ParseDuration(string(args[1]))
		if err != nil || d < 0 {
			return fmt.Errorf("max staleness %s: want a duration such as 2s or 500ms", formatBytes(args[1]))
		}
		staleness = d
	case len(args) == 2:
		return usage
	case c != consistencyLinearizable && c != consistencyLeader && c != consistencyFollower:
		return usage
	}
	r.consistency, r.maxStaleness = string(args[0]), staleness
	return nil
}

// describeConsistency is the consistency as .consistency prints it: "follower (max staleness
// 2s)".
func (r *remote) describeConsistency() string {
	if r.consistency == consistencyFollower && r.maxStaleness > 0 {
		return fmt.Sprintf("%s (max staleness %s)", r.consistency, r.maxStaleness)
	}
	return r.consistency
}

// remotePrompt is the prompt of a remote session: "kvsh@n2> ", with the consistency when it is
// not the default: "kvsh@n2[follower]> ".
func (sh *shell) remotePrompt() string {
	p := "kvsh@" + sh.remote.nodeID
	if sh.remote.consistency != consistencyLinearizable {
		p += "[" + sh.remote.consistency + "]"
	}
	return p + "> "
}

// remoteStartLine is the first line of an interactive remote session: "cairn 0.1.0:
// http://127.0.0.1:8002 (node n2, Follower, leader n1, 3 members); type help".
func remoteStartLine(r *remote, st *nodeStatus) string {
	leader := "no leader known"
	if st.LeaderID != "" {
		leader = "leader " + st.LeaderID
	}
	return fmt.Sprintf("cairn %s: %s (node %s, %s, %s, %s); type help", version, r.base, st.NodeID, st.State, leader,
		plural(uint64(len(st.Members)), "member"))
}

// memberView is one member of .cluster: the configuration's entry, its HTTP address from the
// registry, and what its own status says, if it answered. In JSON, the fields of its status are
// left out when it did not answer (Error says why).
type memberView struct {
	ID       string
	Addr     string // Raft address
	Voter    bool
	HTTPAddr string `json:",omitempty"`

	State        string         `json:",omitempty"`
	Term         string         `json:",omitempty"`
	CommitIndex  *uint64        `json:",omitempty"`
	AppliedIndex *uint64        `json:",omitempty"`
	LastLSN      *uint64        `json:",omitempty"`
	LastContact  *time.Duration `json:",omitempty"` // nanoseconds since it heard from the leader (followers)
	// Lag is the leader's commit index less the member's applied index, in Raft log entries (0 if
	// the member answered later with more), when both answered.
	Lag   *uint64 `json:",omitempty"`
	Error string  `json:",omitempty"`
}

// clusterView is what .cluster prints: the status of the node connected to and its members.
type clusterView struct {
	Node    *nodeStatus
	Members []memberView
}

// gatherCluster reads the status of every member whose HTTP address the node knows (at once,
// each for at most memberTimeout) and computes the lags against the leader's commit index.
// hashicorp/raft does not publish the leader's per-follower match index (Raft.Stats has none),
// so the lag is what each member says it applied, against what the leader says it committed.
func gatherCluster(ctx context.Context, r *remote, st *nodeStatus) clusterView {
	view := clusterView{Node: st, Members: make([]memberView, len(st.Members))}
	statuses := make([]*nodeStatus, len(st.Members))
	var wg sync.WaitGroup
	for i, m := range st.Members {
		mv := &view.Members[i]
		*mv = memberView{ID: m.ID, Addr: m.Addr, Voter: m.Voter, HTTPAddr: st.HTTPAddrs[m.ID]}
		switch {
		case m.ID == st.NodeID:
			statuses[i] = st
		case mv.HTTPAddr == "":
			mv.Error = "its HTTP address is not known yet (it has not registered with the leader)"
		default:
			wg.Go(func() {
				mctx, cancel := context.WithTimeout(ctx, memberTimeout)
				defer cancel()
				ms, err := r.status(mctx, r.memberBase(mv.HTTPAddr))
				if err != nil {
					mv.Error = err.Error()
					if errors.Is(err, errInterrupted) && ctx.Err() == nil {
						mv.Error = fmt.Sprintf("no answer within %s", memberTimeout)
					}
					return
				}
				statuses[i] = ms
			})
		}
	}
	wg.Wait()
	var leaderCommit *uint64
	for i, m := range st.Members {
		if ms := statuses[i]; ms != nil && m.ID == st.LeaderID {
			leaderCommit = &ms.CommitIndex
		}
	}
	for i := range view.Members {
		ms, mv := statuses[i], &view.Members[i]
		if ms == nil {
			continue
		}
		mv.State, mv.Term = ms.State, ms.Term
		mv.CommitIndex, mv.AppliedIndex, mv.LastLSN = &ms.CommitIndex, &ms.AppliedIndex, &ms.LastLSN
		if ms.State != "Leader" {
			mv.LastContact = &ms.LastContact
		}
		if leaderCommit != nil {
			lag := uint64(0)
			if *leaderCommit > ms.AppliedIndex {
				lag = *leaderCommit - ms.AppliedIndex
			}
			mv.Lag = &lag
		}
	}
	return view
}

// cmdCluster prints the status of the node connected to and of the cluster's members: a list
// of fields and a table in every mode but json and jsonl, which print the clusterView.
func cmdCluster(sh *shell, ctx context.Context, _ [][]byte) error {
	r := sh.remote
	if r == nil {
		return errNotCluster(".cluster")
	}
	st, err := r.status(ctx, r.base)
	if err != nil {
		return err
	}
	view := gatherCluster(ctx, r, st)
	if ctx.Err() != nil {
		return errInterrupted
	}
	switch sh.mode {
	case modeJSON, modeJSONL:
		var b []byte
		if sh.mode == modeJSON {
			b, err = json.MarshalIndent(view, "", "  ")
		} else {
			b, err = json.Marshal(view)
		}
		if err != nil {
			return err
		}
		sh.out.Write(b)
		sh.out.WriteByte('\n')
		return nil
	}
	printCluster(sh.out, view, r.describeConsistency())
	return nil
}

// printCluster prints a clusterView as text: the node's fields, one "label  value" per line,
// then the members as a table (kvsh's table style), then a line per member that did not answer.
func printCluster(out *bufio.Writer, view clusterView, consistency string) {
	st := view.Node
	leader := "none known"
	if st.LeaderID != "" {
		leader = st.LeaderID + ", raft " + st.LeaderAddr
		if st.LeaderHTTP != "" {
			leader += ", http " + st.LeaderHTTP
		}
	}
	contact := "-"
	if st.State != "Leader" {
		contact = formatDuration(st.LastContact) + " ago"
	}
	fields := [][2]string{
		{"node", st.NodeID + ", http " + st.HTTPAddr},
		{"state", st.State},
		{"leader", leader},
		{"term", st.Term},
		{"commit index", fmt.Sprint(st.CommitIndex)},
		{"applied index", fmt.Sprint(st.AppliedIndex)},
		{"lsn", fmt.Sprint(st.LastLSN)},
		{"last contact", contact},
		{"reopens", fmt.Sprint(st.Reopens)},
		{"snapshots installed", fmt.Sprint(st.SnapshotsInstalled)},
		{"reads", consistency},
	}
	width := 0
	for _, f := range fields {
		width = max(width, len(f[0]))
	}
	for _, f := range fields {
		fmt.Fprintf(out, "%-*s  %s\n", width, f[0], f[1])
	}
	out.WriteByte('\n')

	cols := []string{"id", "role", "state", "raft", "http", "applied", "lsn", "lag", "contact"}
	p := &tableRowsPrinter{out: out, cols: cols}
	num := func(n *uint64) tableCell {
		if n == nil {
			return tableCell{null: true}
		}
		return tableCell{text: fmt.Sprint(*n), numeric: true}
	}
	var unreachable []string
	for _, m := range view.Members {
		role := "voter"
		if !m.Voter {
			role = "non-voter"
		}
		state, contact := m.State, ""
		if m.Error != "" {
			state = "no answer"
			unreachable = append(unreachable, m.ID+": "+m.Error)
		}
		if m.LastContact != nil {
			contact = formatDuration(*m.LastContact)
		}
		p.addCells([]tableCell{{text: m.ID}, {text: role}, {text: state}, {text: m.Addr}, {text: m.HTTPAddr},
			num(m.AppliedIndex), num(m.LastLSN), num(m.Lag), {text: contact}})
	}
	p.end()
	for _, u := range unreachable {
		out.WriteString(u)
		out.WriteByte('\n')
	}
}

// remoteKeys returns the keys starting with prefix, at most maxCandidates, for completion (at
// the session's consistency; an error gives none).
func (sh *shell) remoteKeys(prefix []byte) [][]byte {
	var keys [][]byte
	ctx, cancel := context.WithTimeout(context.Background(), memberTimeout)
	defer cancel()
	_ = sh.remote.scan(ctx, prefix, nil, nil, maxCandidates, func(k, _ []byte) error {
		keys = append(keys, bytes.Clone(k))
		return nil
	})
	return keys
}

// completeRemote is complete for a remote session: command names, the fixed arguments of the
// commands it runs, and keys from the node.
func (sh *shell) completeRemote(p partialLine) []string {
	if len(p.words) == 0 || (p.words[0] == "help" && len(p.words) == 1) {
		var names []string
		for _, n := range commandNames() {
			if remoteCommands[n] != nil {
				names = append(names, n)
			}
		}
		return completeFrom(names, p.cur)
	}
	name := p.words[0]
	switch {
	case len(p.words) != 1 && !keyArgs[name]:
		return nil
	case name == ".mode":
		return completeFrom(modeNames, p.cur)
	case name == ".timer" || name == ".quiet":
		return completeFrom([]string{"on", "off"}, p.cur)
	case name == ".consistency":
		return completeFrom([]string{consistencyLinearizable, consistencyLeader, consistencyFollower}, p.cur)
	case keyArgs[name]:
		return sh.completeBytes(p.cur, sh.remoteKeys)
	}
	return nil
}

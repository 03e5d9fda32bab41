package cluster

// Forwarding: a follower sends the leader the writes it may not commit itself (SQL statements of
// SQLConnector, KV batches of Write) and asks it for a read index (linearizable SQL reads on a
// follower), over connections of the node's listener (forwardListener, dialForward). Protocol,
// version 1:
//
//	connection: the client sends forwardMagic (8 bytes, the last one the version); the server
//	            answers the same 8 bytes, or closes the connection if it does not speak them.
//	then, one request and its response at a time, each a frame:
//	            length (4 bytes, big-endian, at most maxFrame) | payload
//	request:    kind (1 byte) | body      (requests: encodeSQLRequest, encodeWrite, readIndex)
//	response:   status (1 byte) | body    (statusOK: lsn | the kind's result;
//	            statusNotLeader: leader ID | leader address; statusError: code | message)
//
// Integers are uvarints (varints where signed), strings and byte strings a uvarint length and
// the bytes, SQL values codec records. Invariants:
//   - The server runs a request only once it has read the whole frame, and only on the leader:
//     anywhere else (or once the leader's role is lost before its write began) it answers
//     statusNotLeader and nothing ran, so the client may send the request again, to the leader
//     the answer names.
//   - The client sends a request again only when nothing of it can have run: a dial or write that
//     failed (a frame the server could not read whole), or a statusNotLeader answer; or when it
//     only reads (a read index). A write whose answer is lost has an unknown outcome: the error
//     wraps cairn.ErrFailed, as a leader's commit that lost its quorum.
//   - Decoding never panics: a short or malformed frame is an error wrapping cairn.ErrCorrupt
//     and the connection is closed.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/cairndb/cairn"
	"github.com/cairndb/cairn/sql/codec"
	"github.com/cairndb/cairn/sql/value"
)

// forwardMagic opens a forwarding connection; its last byte is the protocol version.
const forwardMagic = "cairnFW\x01"

// maxFrame bounds a frame's payload (a KV batch or SQL result larger fails).
const maxFrame = 1 << 30

// Request kinds.
const (
	reqSQL       = 1 // an SQL statement (cairnsql.ForwardRequest)
	reqWrite     = 2 // a KV batch (Write)
	reqReadIndex = 3 // the leader's LSN, after confirming its role if asked
)

// Response statuses.
const (
	statusOK        = 0
	statusNotLeader = 1
	statusError     = 2
)

// Error codes of statusError: the sentinels that survive forwarding (errors.Is works on the
// client); other errors come back as their message.
const (
	codePlain     = 0
	codeFailed    = 1 // cairn.ErrFailed: the outcome is unknown
	codeCondition = 2 // ErrConditionFailed
	codeStopped   = 3 // ErrStopped
	codeStale     = 4 // ErrStale
)

var codeErrors = map[byte]error{codeFailed: cairn.ErrFailed, codeCondition: ErrConditionFailed,
	codeStopped: ErrStopped, codeStale: ErrStale}

// remoteError is an error the leader answered: its message, and the sentinel of its code.
type remoteError struct {
	msg      string
	sentinel error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

// forwarding is a node's forwarding state: the server's connections and the client's idle ones.
type forwarding struct {
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{} // served connections
	closed bool
	wg     sync.WaitGroup

	idleAddr string      // the leader address the idle connections reach
	idle     []*idleConn // client connections to idleAddr, newest last
}

// maxIdle bounds the idle client connections a node keeps to the leader.
const maxIdle = 8

// startForwarding serves forwarded requests on the node's forwarding listener, if it has one.
func (n *Node) startForwarding() {
	ln := n.forwardListener()
	if ln == nil {
		return
	}
	f := &n.fwd
	f.mu.Lock()
	f.ln, f.conns = ln, map[net.Conn]struct{}{}
	f.mu.Unlock()
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			if f.closed {
				f.mu.Unlock()
				c.Close()
				return
			}
			f.conns[c] = struct{}{}
			f.wg.Add(1)
			f.mu.Unlock()
			go func() {
				defer f.wg.Done()
				n.serveConn(c)
				f.mu.Lock()
				delete(f.conns, c)
				f.mu.Unlock()
			}()
		}
	}()
}

// stopForwarding closes the listener, the served connections and the idle client connections,
// and waits for the requests being served.
func (n *Node) stopForwarding() {
	f := &n.fwd
	f.mu.Lock()
	f.closed = true
	if f.ln != nil {
		f.ln.Close()
	}
	for c := range f.conns {
		c.Close()
	}
	idle := f.idle
	f.idle = nil
	f.mu.Unlock()
	for _, ic := range idle {
		ic.c.Close()
	}
	f.wg.Wait()
}

// serveConn serves one forwarding connection until it closes or fails.
func (n *Node) serveConn(c net.Conn) {
	defer c.Close()
	var hello [len(forwardMagic)]byte
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, hello[:]); err != nil || string(hello[:]) != forwardMagic {
		n.logger.Warn("forwarding connection refused: bad greeting", "remote", c.RemoteAddr())
		return
	}
	c.SetReadDeadline(time.Time{})
	if _, err := c.Write(hello[:]); err != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-n.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	var buf []byte
	for {
		req, err := readFrame(c, buf)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				n.logger.Debug("forwarding connection", "error", err)
			}
			return
		}
		buf = req[:0]
		resp := n.serveRequest(ctx, req)
		if err := writeFrame(c, resp); err != nil {
			return
		}
	}
}

// serveRequest runs one request and returns its response payload.
func (n *Node) serveRequest(ctx context.Context, req []byte) []byte {
	d := decoder{b: req}
	kind := d.byte()
	var (
		body []byte
		err  error
	)
	switch kind {
	case reqSQL:
		var r sqlRequest
		r.decode(&d)
		if d.err != nil {
			break
		}
		var res sqlResult
		res, err = n.runSQL(ctx, r)
		if err == nil {
			body = res.encode(nil)
		}
	case reqWrite:
		ops := decodeOps(&d)
		if d.err != nil {
			break
		}
		err = n.applyOps(ops)
	case reqReadIndex:
		verify := d.byte() == 1
		if d.err != nil {
			break
		}
		opts := ReadOptions{Consistency: LeaderLocal}
		if verify {
			opts.Consistency = Linearizable
		}
		err = n.readCheck(opts)
	default:
		d.fail("unknown request kind")
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		err = d.err
	}
	return n.response(err, body)
}

// response encodes the response of a request that ended with err, or with body.
func (n *Node) response(err error, body []byte) []byte {
	var nl *NotLeaderError
	switch {
	case err == nil:
		out := []byte{statusOK}
		out = binary.AppendUvarint(out, n.LastLSN())
		return append(out, body...)
	case errors.As(err, &nl):
		out := []byte{statusNotLeader}
		out = appendString(out, nl.LeaderID)
		return appendString(out, nl.LeaderAddr)
	}
	code := byte(codePlain)
	for c, s := range codeErrors {
		if errors.Is(err, s) {
			code = c
		}
	}
	return appendString([]byte{statusError, code}, err.Error())
}

// errLocal is forward's answer when this node became the writable leader: run the request here.
var errLocal = errors.New("cluster: this node is the leader")

// forward sends the request payload req to the leader and returns the body of its answer after
// the status and LSN, and the LSN. readOnly requests are sent again after a lost answer.
func (n *Node) forward(ctx context.Context, req []byte, readOnly bool) (body []byte, lsn uint64, err error) {
	timeout := n.cfg.ForwardTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error = n.notLeader()
	for {
		if err := n.Err(); err != nil {
			return nil, 0, err
		}
		addr, id := n.raft.LeaderWithID()
		switch {
		case id == raft.ServerID(n.cfg.NodeID) && n.writable.Load():
			return nil, 0, errLocal
		case addr != "" && id != raft.ServerID(n.cfg.NodeID):
			if n.forwardListener() == nil {
				return nil, 0, n.notLeader() // no network (Config.Transport): nothing to forward over
			}
			resp, sent, err := n.exchange(ctx, string(addr), req)
			if err != nil {
				if sent && !readOnly {
					return nil, 0, fmt.Errorf("cluster: forwarded write to %s, its outcome is unknown: %w: %w", id, cairn.ErrFailed, err)
				}
				last = fmt.Errorf("cluster: forward to %s: %w", id, err)
				break
			}
			d := decoder{b: resp}
			switch d.byte() {
			case statusOK:
				lsn := d.uvarint()
				if d.err != nil {
					return nil, 0, d.err
				}
				return d.b, lsn, nil
			case statusNotLeader:
				nl := &NotLeaderError{LeaderID: d.string(), LeaderAddr: d.string()}
				if d.err != nil {
					return nil, 0, d.err
				}
				last = nl
			case statusError:
				code, msg := d.byte(), d.string()
				if d.err != nil {
					return nil, 0, d.err
				}
				return nil, 0, &remoteError{msg: msg, sentinel: codeErrors[code]}
			default:
				return nil, 0, fmt.Errorf("cluster: forwarding answer: unknown status: %w", cairn.ErrCorrupt)
			}
		}
		select {
		case <-ctx.Done():
			return nil, 0, fmt.Errorf("cluster: forward: %w (%w)", ctx.Err(), last)
		case <-n.quit:
			return nil, 0, fmt.Errorf("cluster: forward: node closed: %w", cairn.ErrClosed)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// exchange sends req to the node at addr and returns its answer; sent reports whether the
// server may have read the whole request.
func (n *Node) exchange(ctx context.Context, addr string, req []byte) (resp []byte, sent bool, err error) {
	ic, err := n.clientConn(ctx, addr)
	if err != nil {
		return nil, false, err
	}
	c := ic.c
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := writeFrame(c, req); err != nil {
		c.Close()
		return nil, false, err
	}
	resp, err = readFrame(c, nil)
	if err != nil {
		c.Close()
		return nil, true, err
	}
	if stop() {
		c.SetDeadline(time.Time{})
		n.putIdle(addr, ic)
	} else {
		c.Close()
	}
	return resp, true, nil
}

// idleConn is a client connection waiting in the pool; a goroutine reads it meanwhile, so that
// a connection the server closed is dropped rather than used.
type idleConn struct {
	c    net.Conn
	done chan bool // receives true if the connection is still usable once its reader stopped
}

// clientConn returns an idle connection to addr, or a new one.
func (n *Node) clientConn(ctx context.Context, addr string) (*idleConn, error) {
	f := &n.fwd
	for {
		f.mu.Lock()
		if f.idleAddr != addr {
			for _, ic := range f.idle {
				ic.c.Close()
			}
			f.idle, f.idleAddr = nil, addr
		}
		var ic *idleConn
		if k := len(f.idle); k > 0 {
			ic, f.idle = f.idle[k-1], f.idle[:k-1]
		}
		f.mu.Unlock()
		if ic == nil {
			break
		}
		ic.c.SetReadDeadline(time.Unix(1, 0)) // stops the reader
		if <-ic.done {
			ic.c.SetReadDeadline(time.Time{})
			return ic, nil
		}
	}
	timeout := 5 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	if timeout <= 0 {
		return nil, context.DeadlineExceeded
	}
	c, err := n.dialForward(addr, timeout)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(timeout))
	var hello [len(forwardMagic)]byte
	if _, err := c.Write([]byte(forwardMagic)); err != nil {
		c.Close()
		return nil, err
	}
	if _, err := io.ReadFull(c, hello[:]); err != nil || string(hello[:]) != forwardMagic {
		c.Close()
		if err == nil {
			err = fmt.Errorf("cluster: %s does not speak forwarding version %d", addr, forwardMagic[len(forwardMagic)-1])
		}
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return &idleConn{c: c, done: make(chan bool, 1)}, nil
}

// putIdle returns a connection to the pool (or closes it).
func (n *Node) putIdle(addr string, ic *idleConn) {
	f := &n.fwd
	f.mu.Lock()
	if f.closed || f.idleAddr != addr || len(f.idle) >= maxIdle {
		f.mu.Unlock()
		ic.c.Close()
		return
	}
	f.idle = append(f.idle, ic)
	f.mu.Unlock()
	go func() {
		var b [1]byte
		_, err := ic.c.Read(b[:])
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			ic.done <- true // stopped by clientConn
			return
		}
		// The server closed it (or sent what it never sends): drop it.
		ic.c.Close()
		f.mu.Lock()
		for i, x := range f.idle {
			if x == ic {
				f.idle = append(f.idle[:i], f.idle[i+1:]...)
				break
			}
		}
		f.mu.Unlock()
		ic.done <- false
	}()
}

// readFrame reads one frame's payload into buf's array if it fits.
func readFrame(r io.Reader, buf []byte) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(hdr[:])
	if size > maxFrame {
		return nil, fmt.Errorf("cluster: forwarding frame of %d bytes: %w", size, cairn.ErrCorrupt)
	}
	if uint32(cap(buf)) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// writeFrame writes payload as one frame.
func writeFrame(w io.Writer, payload []byte) error {
	if len(payload) > maxFrame {
		return fmt.Errorf("cluster: forwarding frame of %d bytes exceeds %d", len(payload), maxFrame)
	}
	out := make([]byte, 4, 4+len(payload))
	binary.BigEndian.PutUint32(out, uint32(len(payload)))
	_, err := w.Write(append(out, payload...))
	return err
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads a payload; the first malformed field sets err (wrapping cairn.ErrCorrupt) and
// every later read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("cluster: forwarding message: %s: %w", what, cairn.ErrCorrupt)
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail("short")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uvarint() uint64 {
	v, w := binary.Uvarint(d.b)
	if w <= 0 {
		d.fail("bad integer")
		return 0
	}
	d.b = d.b[w:]
	return v
}

func (d *decoder) varint() int64 {
	v, w := binary.Varint(d.b)
	if w <= 0 {
		d.fail("bad integer")
		return 0
	}
	d.b = d.b[w:]
	return v
}

// bytes returns a byte string, a slice of the payload; nil if absent (length 0 is []byte{}).
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail("bad length")
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string { return string(d.bytes()) }

// count reads a count of items of at least min bytes each.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)/min) {
		d.fail("bad count")
		return 0
	}
	return int(n)
}

// record reads a codec record of SQL values.
func (d *decoder) record() []value.Value {
	b := d.bytes()
	if d.err != nil {
		return nil
	}
	vals, err := codec.DecodeRecord(b, nil)
	if err != nil {
		d.fail("bad record")
		return nil
	}
	return vals
}

// durationMS converts milliseconds from the wire.
func durationMS(ms uint64) time.Duration {
	if ms > math.MaxInt64/uint64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// Command cairnd runs one node of a replicated cairn database (package cluster): its Raft and
// forwarding listener (-addr), and an HTTP API (-http) with the node's status and a small
// key-value client API. docs/CLUSTER.md, "Running a cluster", shows three nodes on one machine,
// with and without TLS.
//
//	cairnd -id n1 -dir data/n1 -addr 127.0.0.1:7001 -http 127.0.0.1:8001 -bootstrap
//	cairnd -id n2 -dir data/n2 -addr 127.0.0.1:7002 -http 127.0.0.1:8002 -join 127.0.0.1:8001
//	cairnd gen-certs -dir certs -nodes n1,n2,n3
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cairndb/cairn/cluster"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil))
}

// options is the parsed command line of a node.
type options struct {
	id, dir             string
	addr, advertise     string
	peers               []cluster.Peer
	bootstrap           bool
	join                string
	http, httpAdvertise string
	tlsCert, tlsKey     string
	tlsCA               string
	insecure            bool
	snapshotThreshold   uint64
	trailingLogs        uint64
	snapshotInterval    time.Duration
	heartbeat, election time.Duration
	logLevel            string
	cacheBytes          int64
}

// parseFlags parses a node's command line. Errors are usage errors (exit status 2).
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("cairnd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cairnd -id ID [flags]\n       cairnd gen-certs -dir DIR -nodes ID,ID,... [-hosts HOST,...]\n\nflags:\n")
		fs.PrintDefaults()
	}
	var peers string
	fs.StringVar(&o.id, "id", "", "node ID: unique in the cluster, stable across restarts (required)")
	fs.StringVar(&o.dir, "dir", "", "data directory, created with mode 0700 (default cairnd-ID)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:7001", "Raft and forwarding listener, host:port (port 0: any free port)")
	fs.StringVar(&o.advertise, "advertise", "", "Raft address other nodes dial (default: the listener's address)")
	fs.StringVar(&peers, "peers", "", "initial voters with -bootstrap: id=host:port,... (this node included; default: this node alone)")
	fs.BoolVar(&o.bootstrap, "bootstrap", false, "make a new cluster of -peers if this node has no Raft state yet (ignored once it has)")
	fs.StringVar(&o.join, "join", "", "HTTP address (host:port) of a running node: ask the cluster's leader to add this node as a voter")
	fs.StringVar(&o.http, "http", "127.0.0.1:8001", "HTTP API listener, host:port (status and key-value API; HTTPS with mutual TLS when -tls-* are set)")
	fs.StringVar(&o.httpAdvertise, "http-advertise", "", "HTTP address other nodes and redirects use (default: the HTTP listener's address)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "this node's certificate (PEM): with -tls-key and -tls-ca, every connection is mutual TLS")
	fs.StringVar(&o.tlsKey, "tls-key", "", "this node's private key (PEM)")
	fs.StringVar(&o.tlsCA, "tls-ca", "", "the cluster's CA certificate (PEM): it signed every member's and client's certificate")
	fs.BoolVar(&o.insecure, "insecure", false, "allow listening on a non-loopback address without TLS")
	fs.Uint64Var(&o.snapshotThreshold, "snapshot-threshold", 8192, "log entries since the last snapshot that start a new one")
	fs.Uint64Var(&o.trailingLogs, "trailing-logs", 10240, "log entries a snapshot leaves for slow followers")
	fs.DurationVar(&o.snapshotInterval, "snapshot-interval", 120*time.Second, "how often Raft checks -snapshot-threshold")
	fs.DurationVar(&o.heartbeat, "heartbeat-timeout", time.Second, "Raft's heartbeat timeout")
	fs.DurationVar(&o.election, "election-timeout", time.Second, "Raft's election timeout")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level on stderr: trace, debug, info, warn, error")
	fs.Int64Var(&o.cacheBytes, "cache-bytes", 0, "page cache of the node's database in bytes (0: cairn's default)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "cairnd: unexpected argument %q\n", fs.Arg(0))
		return nil, errors.New("usage")
	}
	fail := func(format string, a ...any) (*options, error) {
		fmt.Fprintf(stderr, "cairnd: "+format+"\n", a...)
		return nil, errors.New("usage")
	}
	if o.id == "" {
		return fail("-id is required")
	}
	if o.dir == "" {
		o.dir = "cairnd-" + o.id
	}
	var err error
	if o.peers, err = parsePeers(peers); err != nil {
		return fail("-peers: %v", err)
	}
	if len(o.peers) > 0 && !o.bootstrap {
		return fail("-peers needs -bootstrap (it is the configuration of a new cluster)")
	}
	if o.bootstrap && o.join != "" {
		return fail("-bootstrap and -join exclude each other")
	}
	tlsFlags := 0
	for _, f := range []string{o.tlsCert, o.tlsKey, o.tlsCA} {
		if f != "" {
			tlsFlags++
		}
	}
	if tlsFlags != 0 && tlsFlags != 3 {
		return fail("-tls-cert, -tls-key and -tls-ca go together")
	}
	if tlsFlags == 0 && !o.insecure {
		for _, a := range []struct{ flag, addr string }{{"-addr", o.addr}, {"-http", o.http}} {
			if err := requireLoopback(a.addr); err != nil {
				return fail("refusing to listen on %s (%s) without TLS: %v; give -tls-cert, -tls-key and -tls-ca, "+
					"or -insecure to accept that anyone who reaches the port can read and write the database", a.addr, a.flag, err)
			}
		}
	}
	return o, nil
}

// parsePeers parses id=host:port,id=host:port.
func parsePeers(s string) ([]cluster.Peer, error) {
	var peers []cluster.Peer
	seen := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		id, addr, ok := strings.Cut(p, "=")
		if !ok || id == "" || addr == "" {
			return nil, fmt.Errorf("%q is not id=host:port", p)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("%q: %v", p, err)
		}
		if seen[id] {
			return nil, fmt.Errorf("node %s appears twice", id)
		}
		seen[id] = true
		peers = append(peers, cluster.Peer{ID: id, Addr: addr})
	}
	return peers, nil
}

// requireLoopback returns an error unless every address host:port can listen on is a loopback
// address (an empty host or 0.0.0.0 listens on every interface).
func requireLoopback(hostport string) error {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return err
	}
	if host == "" {
		return errors.New("an empty host listens on every interface")
	}
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s is not a loopback address", ip)
		}
		return nil
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return err
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s resolves to %s, not a loopback address", host, ip)
		}
	}
	return nil
}

// run runs cairnd with args until a signal (or stop, when not nil, is closed) and returns the
// exit status.
func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	if len(args) > 0 && args[0] == "gen-certs" {
		return genCerts(args[1:], stdout, stderr)
	}
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "cairnd", Level: hclog.LevelFromString(o.logLevel), Output: stderr})
	cfg := cluster.Config{NodeID: o.id, BindAddr: o.addr, AdvertiseAddr: o.advertise, Bootstrap: o.bootstrap,
		Peers: o.peers, HeartbeatTimeout: o.heartbeat, ElectionTimeout: o.election,
		LeaderLeaseTimeout: min(o.heartbeat, o.election) / 2, SnapshotThreshold: o.snapshotThreshold,
		TrailingLogs: o.trailingLogs, SnapshotInterval: o.snapshotInterval, CacheBytes: o.cacheBytes, Logger: logger}
	var httpTLS, clientTLS *tls.Config
	if o.tlsCert != "" {
		if cfg.TLS, err = cluster.LoadTLS(o.tlsCert, o.tlsKey, o.tlsCA); err != nil {
			fmt.Fprintf(stderr, "cairnd: %v\n", err)
			return 1
		}
		httpTLS, clientTLS = httpTLSConfigs(cfg.TLS)
	}
	node, err := cluster.Open(o.dir, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "cairnd: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", o.http)
	if err != nil {
		node.Close()
		fmt.Fprintf(stderr, "cairnd: -http: %v\n", err)
		return 1
	}
	httpAddr := o.httpAdvertise
	if httpAddr == "" {
		httpAddr = ln.Addr().String()
		// Listening on every interface: advertise the host the Raft address advertises.
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
			host, _, _ := net.SplitHostPort(node.Addr())
			httpAddr = net.JoinHostPort(host, strconv.Itoa(tcp.Port))
		}
	}
	s := newServer(node, o.id, httpAddr, clientTLS, logger)
	srv := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second, TLSConfig: httpTLS,
		ErrorLog: logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})}
	served := make(chan error, 1)
	go func() {
		if httpTLS != nil {
			served <- srv.ServeTLS(ln, "", "")
		} else {
			served <- srv.Serve(ln)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	go s.register(ctx, o.join)
	fmt.Fprintf(stdout, "cairnd: node %s: raft %s, http %s, data %s\n", o.id, node.Addr(), s.url(httpAddr, ""), o.dir)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	status := 0
	select {
	case sig := <-sigs:
		logger.Info("stopping", "signal", sig.String())
	case <-stop:
	case err := <-served:
		logger.Error("HTTP server failed", "error", err)
		status = 1
	}
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx)
	if err := node.Close(); err != nil {
		fmt.Fprintf(stderr, "cairnd: close: %v\n", err)
		status = 1
	}
	return status
}

// httpTLSConfigs returns the HTTP API's server configuration (mutual TLS 1.3 against the
// cluster's CA; clients need a certificate of that CA) and the configuration of the node's own
// HTTP client (joins and registrations sent to other nodes), which checks host names as HTTPS
// does: the certificates need the HTTP hosts as subject alternative names.
func httpTLSConfigs(c *tls.Config) (server, client *tls.Config) {
	server = &tls.Config{Certificates: c.Certificates, ClientCAs: c.ClientCAs, MinVersion: tls.VersionTLS13,
		ClientAuth: tls.RequireAndVerifyClientCert}
	if server.ClientCAs == nil {
		server.ClientCAs = c.RootCAs
	}
	client = &tls.Config{Certificates: c.Certificates, RootCAs: c.RootCAs, MinVersion: tls.VersionTLS13}
	return server, client
}

package main

// cairnd gen-certs makes the certificates of a small cluster: a CA (ca.pem, ca-key.pem), a
// certificate and key per node (ID.pem, ID-key.pem) and one for clients of the HTTP API
// (client.pem, client-key.pem). An existing CA in the directory is reused, so that nodes can be
// added later; existing node files are not overwritten. Keys are ECDSA P-256, files of keys
// mode 0600.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func genCerts(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cairnd gen-certs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "certs", "directory of the certificates (created with mode 0700)")
	nodes := fs.String("nodes", "", "node IDs, comma-separated: one certificate each (required)")
	hosts := fs.String("hosts", "127.0.0.1,::1,localhost", "host names and IP addresses of the nodes' HTTP APIs (subject alternative names)")
	days := fs.Int("days", 825, "validity of the certificates in days")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *nodes == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "cairnd gen-certs: -nodes is required (and no arguments)")
		return 2
	}
	if err := makeCerts(*dir, strings.Split(*nodes, ","), strings.Split(*hosts, ","), time.Duration(*days)*24*time.Hour, stdout); err != nil {
		fmt.Fprintf(stderr, "cairnd gen-certs: %v\n", err)
		return 1
	}
	return 0
}

// makeCerts writes the CA (or reuses the one in dir) and a certificate per name of nodes, plus
// "client".
func makeCerts(dir string, nodes, hosts []string, validity time.Duration, out io.Writer) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, caKey, err := loadCA(dir)
	if errors.Is(err, os.ErrNotExist) {
		ca, caKey, err = newCA(dir, validity)
		if err == nil {
			fmt.Fprintf(out, "wrote %s\n", filepath.Join(dir, "ca.pem"))
		}
	}
	if err != nil {
		return err
	}
	var ips []net.IP
	var dns []string
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else if h != "" {
			dns = append(dns, h)
		}
	}
	for _, name := range append(nodes, "client") {
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, `/\`) {
			return fmt.Errorf("bad node ID %q", name)
		}
		certFile := filepath.Join(dir, name+".pem")
		if _, err := os.Stat(certFile); err == nil {
			fmt.Fprintf(out, "kept %s\n", certFile)
			continue
		}
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{SerialNumber: serialNumber(), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(validity),
			KeyUsage:    x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
			IPAddresses: ips, DNSNames: dns}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		if err := writeKeyPair(dir, name, der, key); err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %s\n", certFile)
	}
	return nil
}

func serialNumber() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

// newCA makes the CA of dir.
func newCA(dir string, validity time.Duration) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serialNumber(), Subject: pkix.Name{CommonName: "cairn cluster CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(validity), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	if err := writeKeyPair(dir, "ca", der, key); err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

// loadCA reads dir/ca.pem and dir/ca-key.pem.
func loadCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca-key.pem"))
	if err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "ca.pem")); errors.Is(serr, os.ErrNotExist) {
			return nil, nil, serr
		}
		return nil, nil, fmt.Errorf("the CA of %s: %w", dir, err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, nil, err
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok || !cert.IsCA {
		return nil, nil, fmt.Errorf("%s is not an ECDSA CA of gen-certs", filepath.Join(dir, "ca.pem"))
	}
	return cert, key, nil
}

// writeKeyPair writes dir/name.pem (0644) and dir/name-key.pem (0600).
func writeKeyPair(dir, name string, der []byte, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+"-key.pem"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

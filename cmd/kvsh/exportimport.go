package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairndb/cairn"
)

// pairSource reads key/value pairs from r and hands each to emit, stopping at emit's error.
type pairSource func(r io.Reader, emit func(k, v []byte) error) error

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

// Read implements io.Reader.
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// importPairs stores the pairs of a JSON Lines or CSV file, committing in batches (or into the
// open transaction). On an error or Ctrl-C the pairs read before it are stored and counted.
func (sh *shell) importPairs(ctx context.Context, path string, read pairSource) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	cr := &countingReader{r: f}
	start := time.Now()
	prog := newProgress(sh, "import", "pairs", size, false)
	var batch []fileItem
	var batchBytes, pairs, stored int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := sh.putBatch(batch)
		if err == nil {
			pairs += int64(len(batch))
			stored += batchBytes
		}
		batch, batchBytes = nil, 0
		return err
	}
	err = read(bufio.NewReaderSize(cr, 1<<20), func(k, v []byte) error {
		if ctx.Err() != nil {
			return errInterrupted
		}
		batch = append(batch, fileItem{key: k, data: v})
		batchBytes += int64(len(v))
		prog.update(pairs+int64(len(batch)), cr.n)
		if len(batch) >= batchMaxFiles || batchBytes >= batchMaxBytes {
			return flush()
		}
		return nil
	})
	if ferr := flush(); err == nil {
		err = ferr
	}
	prog.finish()
	fmt.Fprintf(sh.out, "imported %d pairs, %d bytes in %.2f s\n", pairs, stored, time.Since(start).Seconds())
	if err != nil {
		return fmt.Errorf("import %s: %w", formatBytes([]byte(path)), err)
	}
	return nil
}

// readJSONL reads one {"key": K, "value": V} object per line (K and V as in .mode jsonl: a
// string or {"base64": "…"}); blank lines are skipped.
func readJSONL(r io.Reader, emit func(k, v []byte) error) error {
	br := bufio.NewReader(r)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			k, v, perr := parseJSONLine(line)
			if perr != nil {
				return fmt.Errorf("line %d: %v", lineNo, perr)
			}
			if eerr := emit(k, v); eerr != nil {
				return eerr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// parseJSONLine decodes one JSON Lines pair, rejecting unknown fields and trailing data.
func parseJSONLine(line []byte) (k, v []byte, err error) {
	var p struct {
		Key   *jsonBytes `json:"key"`
		Value *jsonBytes `json:"value"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("data after the object")
	}
	if p.Key == nil || p.Value == nil {
		return nil, nil, errors.New(`want {"key": …, "value": …}`)
	}
	return *p.Key, *p.Value, nil
}

// readCSV reads key,value records (RFC 4180 quoting); the values are the text of the field. A
// first record "key,value" (any case) is a header and skipped.
func readCSV(r io.Reader, emit func(k, v []byte) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if first {
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
			if strings.EqualFold(rec[0], "key") && strings.EqualFold(rec[1], "value") {
				continue
			}
		}
		if err := emit([]byte(rec[0]), []byte(rec[1])); err != nil {
			return err
		}
	}
}

// cmdExport writes the keys (starting with a prefix) from one snapshot to a JSON Lines file, or
// as files under a directory that must be new or empty.
func cmdExport(sh *shell, ctx context.Context, args [][]byte) error {
	dest := string(args[0])
	var prefix []byte
	if len(args) > 1 {
		prefix = args[1]
	}
	toJSONL := strings.EqualFold(filepath.Ext(dest), ".jsonl")
	if !toJSONL {
		if err := prepareExportDir(dest); err != nil {
			return err
		}
	}
	return sh.viewSpace(func(_ *cairn.Tx, ks keySpace) error {
		var total int64
		if sh.progress {
			for range ks.Prefix(prefix) {
				if total%4096 == 0 && ctx.Err() != nil {
					return errInterrupted
				}
				total++
			}
		}
		e := &exporter{sh: sh, ctx: ctx, start: time.Now(), prog: newProgress(sh, "export", "keys", total, true)}
		var err error
		if toJSONL {
			err = e.toJSONL(ks, dest, prefix)
		} else {
			err = e.toDir(ks, dest, prefix)
		}
		e.prog.finish()
		fmt.Fprintf(sh.out, "exported %d keys, %d bytes in %.2f s", e.keys, e.bytes, time.Since(e.start).Seconds())
		if !toJSONL {
			fmt.Fprintf(sh.out, " (skipped %d)", e.skipped)
		}
		fmt.Fprintln(sh.out)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	})
}

// prepareExportDir creates dir, or checks that it is an empty directory.
func prepareExportDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return fmt.Errorf("export to %s: %w (want a new or empty directory, or a .jsonl file)", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("export to %s: directory is not empty (want a new or empty directory)", dir)
	}
	return nil
}

// exporter tallies one export.
type exporter struct {
	sh      *shell
	ctx     context.Context
	start   time.Time
	prog    *progress
	keys    int64
	bytes   int64
	skipped int64
}

// toJSONL writes the pairs as JSON Lines.
func (e *exporter) toJSONL(ks keySpace, path string, prefix []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for k, v := range ks.Prefix(prefix) {
		if e.ctx.Err() != nil {
			err = errInterrupted
			break
		}
		line, merr := marshalNoHTML(jsonPair{k, v})
		if merr != nil {
			err = merr
			break
		}
		w.Write(line)
		if werr := w.WriteByte('\n'); werr != nil {
			err = werr
			break
		}
		e.count(v)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// toDir writes each pair as a file named by its key under dir. Keys that are not relative
// slash-separated paths, or that clash with another key's directory, are skipped with a warning.
func (e *exporter) toDir(ks keySpace, dir string, prefix []byte) error {
	for k, v := range ks.Prefix(prefix) {
		if e.ctx.Err() != nil {
			return errInterrupted
		}
		rel, err := keyPath(k)
		if err != nil {
			e.skip(k, err)
			continue
		}
		path := filepath.Join(dir, rel)
		err = os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = os.WriteFile(path, v, 0o644)
		}
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.EEXIST) {
			e.skip(k, errors.New("clashes with another key's file or directory"))
			continue
		}
		if err != nil {
			return err
		}
		e.count(v)
	}
	return nil
}

// count records one exported pair.
func (e *exporter) count(v []byte) {
	e.keys++
	e.bytes += int64(len(v))
	e.prog.update(e.keys, e.bytes)
}

// skip counts and reports a key left out of a directory export.
func (e *exporter) skip(k []byte, why error) {
	e.skipped++
	e.sh.skipWarn("skipping key %s: %v", formatCut(k, 64), why)
}

// keyPath turns a key into a relative file path, or says why it cannot be one.
func keyPath(k []byte) (string, error) {
	if bytes.IndexByte(k, 0) >= 0 {
		return "", errors.New("a file name cannot hold a NUL byte")
	}
	s := string(k)
	for _, part := range strings.Split(s, "/") {
		if part == "" || part == "." || part == ".." {
			return "", errors.New("not a relative path (empty, . or .. element)")
		}
	}
	return filepath.FromSlash(s), nil
}

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

// readJSON reads one JSON array of {"key": K, "value": V} objects (as export FILE.json and
// .mode json write them; K and V as in readJSONL).
func readJSON(r io.Reader, emit func(k, v []byte) error) error {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		return errors.New(`want a JSON array of {"key": …, "value": …} objects`)
	}
	for n := 1; dec.More(); n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("element %d: %v", n, err)
		}
		k, v, err := parseJSONLine(raw)
		if err != nil {
			return fmt.Errorf("element %d: %v", n, err)
		}
		if err := emit(k, v); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ]
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the array")
	}
	return nil
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

// exportFormat is what export writes: files under a directory, or one file of pairs.
type exportFormat int

// The export formats, chosen by the destination's extension.
const (
	exportDir   exportFormat = iota // one file per key under a new or empty directory
	exportJSON                      // .json: one JSON array of pairs, as .mode json prints
	exportJSONL                     // .jsonl: one pair per line, as .mode jsonl prints
	exportCSV                       // .csv: a key,value header, then one record per pair
)

// exportFormatOf chooses the format from the destination's extension (any case).
func exportFormatOf(dest string) exportFormat {
	switch strings.ToLower(filepath.Ext(dest)) {
	case ".json":
		return exportJSON
	case ".jsonl":
		return exportJSONL
	case ".csv":
		return exportCSV
	}
	return exportDir
}

// cmdExport writes the keys (starting with a prefix) of one snapshot to a JSON, JSON Lines or
// CSV file (by the extension), or as files under a directory that must be new or empty. A
// destination that cannot be made gives its error alone; an export stopped by an error or
// Ctrl-C says how far it got ("export stopped after N keys, …") before the error.
func cmdExport(sh *shell, ctx context.Context, args [][]byte) error {
	dest := string(args[0])
	var prefix []byte
	if len(args) > 1 {
		prefix = args[1]
	}
	format := exportFormatOf(dest)
	return sh.viewSpace(func(_ *cairn.Tx, ks keySpace) error {
		var f *os.File
		if format == exportDir {
			if err := prepareExportDir(dest); err != nil {
				return err
			}
		} else {
			var err error
			if f, err = os.Create(dest); err != nil {
				return fmt.Errorf("export: %w", err)
			}
			defer f.Close()
		}
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
		if format == exportDir {
			err = e.toDir(ks, dest, prefix)
		} else {
			err = e.toFile(ks, f, format, prefix)
		}
		e.prog.finish()
		head := "exported"
		if err != nil {
			head = "export stopped after"
		}
		fmt.Fprintf(sh.out, "%s %d keys, %d bytes in %.2f s", head, e.keys, e.bytes, time.Since(e.start).Seconds())
		if e.skipped > 0 {
			fmt.Fprintf(sh.out, " (skipped %d)", e.skipped)
		}
		fmt.Fprintln(sh.out)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	})
}

// prepareExportDir creates dir, or checks that it is an empty directory. An existing file of
// any other type is refused, never replaced.
func prepareExportDir(dir string) error {
	const want = "want a new or empty directory, or a file name ending in .json, .jsonl or .csv"
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("export: %w", err)
	case !st.IsDir():
		return fmt.Errorf("export to %s: it exists and is not a directory (%s)", dir, want)
	}
	entries, err := os.ReadDir(dir)
	switch {
	case err != nil:
		return fmt.Errorf("export: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("export to %s: directory is not empty (%s)", dir, want)
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

// toFile writes the pairs to f as JSON (an array), JSON Lines or CSV, and closes f. CSV starts
// with a key,value header (import skips it); a pair holding "\r\n" is skipped with a warning,
// since a CSV reader turns it into "\n".
func (e *exporter) toFile(ks keySpace, f *os.File, format exportFormat, prefix []byte) error {
	sw := &stickyWriter{w: f}
	w := bufio.NewWriterSize(sw, 1<<20)
	var pairs *pairPrinter
	var cw *csv.Writer
	switch format {
	case exportJSON:
		pairs = newPairPrinter(w, modeJSON)
	case exportJSONL:
		pairs = newPairPrinter(w, modeJSONL)
	case exportCSV:
		cw = csv.NewWriter(w)
		cw.Write([]string{"key", "value"})
	}
	var err error
	for k, v := range ks.Prefix(prefix) {
		if e.ctx.Err() != nil {
			err = errInterrupted
			break
		}
		if sw.err != nil {
			break
		}
		if cw != nil {
			if bytes.Contains(k, []byte("\r\n")) || bytes.Contains(v, []byte("\r\n")) {
				e.skip(k, errors.New(`a CSV field cannot hold "\r\n" (it reads back as "\n"): export to .jsonl`))
				continue
			}
			cw.Write([]string{string(k), string(v)})
			err = cw.Error()
		} else {
			err = pairs.pair(k, v)
		}
		if err != nil {
			break
		}
		e.count(v)
	}
	if pairs != nil && err == nil {
		pairs.end()
	}
	if cw != nil {
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// stickyWriter keeps the first write error, so that an export stops at it rather than at the
// end (a bufio.Writer only returns it from a later Write or Flush).
type stickyWriter struct {
	w   io.Writer
	err error
}

// Write implements io.Writer.
func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
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

// skip counts and reports a key left out of the export.
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

package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestModes checks every output mode of get and the listings, with binary keys and values.
func TestModes(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", `put 0x00ff "x\ny"; put a 1; put b/c "<hi>"; put u "é\x01"`).expect(t, "", "", 0)
	runKvsh(t, "", db, "-c", ".mode json; scan; prefix zz; get a").expect(t,
		"[\n"+`{"key":{"base64":"AP8="},"value":"x\ny"}`+",\n"+`{"key":"a","value":"1"}`+",\n"+
			`{"key":"b/c","value":"<hi>"}`+",\n"+`{"key":"u","value":{"base64":"w6kB"}}`+"\n]\n"+
			"[]\n"+`{"key":"a","value":"1"}`+"\n", "", 0)
	runKvsh(t, "", db, "-c", ".mode jsonl; range a c; first; last").expect(t,
		`{"key":"a","value":"1"}`+"\n"+`{"key":"b/c","value":"<hi>"}`+"\n"+
			`{"key":{"base64":"AP8="},"value":"x\ny"}`+"\n"+`{"key":"u","value":{"base64":"w6kB"}}`+"\n", "", 0)
	runKvsh(t, "", db, "-c", ".mode hex; prefix b; get 0x00ff; .mode").expect(t, "622f63\t3c68693e\n780a79\nhex\n", "", 0)
	runKvsh(t, "", db, "-c", ".mode raw; get 0x00ff; get u; prefix b").expect(t, "x\nyé\x01b/c\t<hi>\n", "", 0)
	runKvsh(t, "", db, "-c", ".mode csv; range 0x00 b; get a; prefix zz").expect(t,
		"key,value\n\x00\xff,\"x\ny\"\na,1\nkey,value\na,1\n", "", 0)
	runKvsh(t, "", db, "-c", ".mode xml; .mode; first b; last b; first zz").expect(t, "table\nb/c\t<hi>\nb/c\t<hi>\n",
		"error: unknown mode xml (want table, json, jsonl, csv, raw or hex)\nerror: no key starts with zz\n", 1)
	r := runKvsh(t, "", db, "-c", ".timer on; count; .timer off; count")
	if r.stdout != "4\n4\n" || strings.Count(r.stderr, "time: ") != 2 || r.code != 0 {
		t.Fatalf(".timer: %+v", r)
	}
}

// TestPrefixEnd checks the bound last uses for a prefix.
func TestPrefixEnd(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "b", "a\xff": "b", "\xff\xff": "", "ab\xfe": "ab\xff"} {
		if got := string(prefixEnd([]byte(in))); got != want {
			t.Errorf("prefixEnd(%q) = %q, want %q", in, got, want)
		}
	}
	db := tempDB(t)
	runKvsh(t, "", db, "-c", `put a 1; put "a\xff" 2; put "a\xff\xff" 3; put b 4; last a; first b; last`).expect(t,
		`"a\xff\xff"`+"\t3\nb\t4\nb\t4\n", "", 0)
	runKvsh(t, "", tempDB(t), "-c", "first; last").expect(t, "", "error: the database is empty\nerror: the database is empty\n", 1)
}

// TestTransactions checks begin, begin ro, commit, rollback, and the rollback at the end.
func TestTransactions(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "begin; put a 1; put b 2; get a; commit; begin; put c 3; del a; count; rollback; count").
		expect(t, "1\n2\n2\n", "", 0)
	// A read-only transaction sees its snapshot and refuses writes.
	runKvsh(t, "", db, "-c", "begin ro; put x 1; scan; commit; put x 1; count").expect(t, "a\t1\nb\t2\n3\n",
		"error: put is not allowed in a read-only transaction: commit or rollback first\n", 1)
	runKvsh(t, "", db, "-c", "begin; begin; commit; commit; rollback; begin ro; checkpoint; import /nonexistent").expect(t, "",
		"error: a transaction is already open: commit or rollback first\n"+
			"error: no open transaction (begin starts one)\n"+
			"error: no open transaction (begin starts one)\n"+
			"error: checkpoint is not allowed in a read-only transaction: commit or rollback first\n"+
			"error: import is not allowed in a read-only transaction: commit or rollback first\n", 1)
	// An open write transaction is rolled back at the end of the input, with a warning.
	runKvsh(t, "begin\nput y 1\nget y\n", db).expect(t, "1\n",
		"warning: the open transaction was rolled back (commit saves changes)\n", 0)
	runKvsh(t, "", db, "-c", "begin; put y 1; quit").expect(t, "",
		"warning: the open transaction was rolled back (commit saves changes)\n", 0)
	runKvsh(t, "", db, "-c", "get y; count").expect(t, "3\n", "error: not found: y\n", 1)
	// Imports inside a transaction land in it.
	data := filepath.Join(t.TempDir(), "d.csv")
	writeFile(t, data, []byte("k1,v1\nk2,v2\n"))
	r := runKvsh(t, "", db, "-c", "begin; import "+data+"; count; rollback; count")
	if !strings.HasSuffix(r.stdout, "\n5\n3\n") || r.code != 0 {
		t.Fatalf("import in a transaction: %+v", r)
	}
}

// TestReadonly checks -readonly refuses writes and allows reads and read-only transactions.
func TestReadonly(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "put a 1").expect(t, "", "", 0)
	runKvsh(t, "", "-readonly", db, "-c", "put b 2; del a; begin; import x; checkpoint; begin ro; get a; rollback; count").
		expect(t, "1\n1\n", "error: put is not allowed: the database was opened with -readonly\n"+
			"error: del is not allowed: the database was opened with -readonly\n"+
			"error: begin is not allowed: the database was opened with -readonly\n"+
			"error: import is not allowed: the database was opened with -readonly\n"+
			"error: checkpoint is not allowed: the database was opened with -readonly\n", 1)
}

// TestScriptFile runs commands from a file with -f, with -bail.
func TestScriptFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	script := filepath.Join(dir, "script")
	writeFile(t, script, []byte("# setup\nput a 1\nbegin; put b 2; commit\nget nope\nscan\n"))
	runKvsh(t, "", db, "-f", script).expect(t, "a\t1\nb\t2\n", "error: not found: nope\n", 1)
	runKvsh(t, "", db, "-bail", "-f", script).expect(t, "", "error: not found: nope\n", 1)
	r := runKvsh(t, "", db, "-f", filepath.Join(dir, "missing"))
	if r.code != 1 || !strings.HasPrefix(r.stderr, "error: open ") {
		t.Fatalf("missing script: %+v", r)
	}
	if r := runKvsh(t, "", db, "-f", script, "-c", "count"); r.code != 2 || !strings.Contains(r.stderr, "-c and -f") {
		t.Fatalf("-c with -f: %+v", r)
	}
}

// binaryPairs is a set of keys and values covering every byte, invalid UTF-8, JSON specials
// and text.
func binaryPairs() map[string]string {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	return map[string]string{
		"text":                   "hello, world",
		"\x00\xff":               string(all),
		"quote\"and\\":           "<&>\u2028\t\r\n",
		"empty":                  "",
		"é/ü":                    "värde",
		"bad\xc3":                "\xc3\x28",
		strings.Repeat("k", 300): strings.Repeat("v", 100000),
	}
}

// putAll stores pairs through -c commands with Go-quoted arguments.
func putAll(t *testing.T, db string, pairs map[string]string) {
	t.Helper()
	var cmds []string
	for k, v := range pairs {
		cmds = append(cmds, "put "+strconv.Quote(k)+" "+strconv.Quote(v))
	}
	runKvsh(t, "", db, "-c", strings.Join(cmds, "; ")).expect(t, "", "", 0)
}

// dumpJSONL lists a database as JSON Lines and decodes it.
func dumpJSONL(t *testing.T, db string) map[string]string {
	t.Helper()
	r := runKvsh(t, "", db, "-c", ".mode jsonl; scan")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("scan: %+v", r)
	}
	out := map[string]string{}
	for line := range strings.Lines(r.stdout) {
		var p jsonPair
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out[string(p.Key)] = string(p.Value)
	}
	return out
}

// samePairs fails unless got and want hold the same pairs.
func samePairs(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d pairs, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("key %q: got %d bytes %q..., want %d bytes", k, len(got[k]), got[k][:min(len(got[k]), 20)], len(v))
		}
	}
}

// TestExportImportJSONL round-trips binary pairs through export FILE.jsonl and import.
func TestExportImportJSONL(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "dst.db")
	pairs := binaryPairs()
	putAll(t, src, pairs)
	samePairs(t, dumpJSONL(t, src), pairs)

	file := filepath.Join(dir, "out.jsonl")
	r := runKvsh(t, "", src, "-c", "export "+strconv.Quote(file))
	if r.code != 0 || !strings.HasPrefix(r.stdout, "exported 7 keys, ") || r.stderr != "" {
		t.Fatalf("export: %+v", r)
	}
	r = runKvsh(t, "", dst, "-c", "import "+strconv.Quote(file))
	if r.code != 0 || !strings.HasPrefix(r.stdout, "imported 7 pairs, ") || r.stderr != "" {
		t.Fatalf("import: %+v", r)
	}
	samePairs(t, dumpJSONL(t, dst), pairs)

	// export with a prefix; the file equals the jsonl listing.
	r = runKvsh(t, "", src, "-c", "export "+strconv.Quote(file)+" e")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "exported 1 keys") {
		t.Fatalf("export with prefix: %+v", r)
	}
	got, _ := os.ReadFile(file)
	listing := runKvsh(t, "", src, "-c", ".mode jsonl; prefix e").stdout
	if string(got) != listing {
		t.Errorf("export file %q differs from the listing %q", got, listing)
	}

	// Bad lines stop the import with the line number; the lines before are stored.
	bad := filepath.Join(dir, "bad.jsonl")
	writeFile(t, bad, []byte(`{"key":"x1","value":"1"}`+"\n\n"+`{"key":"x2","value":{"base64":"@@"}}`+"\n"))
	r = runKvsh(t, "", dst, "-c", "import "+strconv.Quote(bad)+"; get x1")
	if r.code != 1 || !strings.HasPrefix(r.stdout, "imported 1 pairs") || !strings.HasSuffix(r.stdout, "\n1\n") ||
		!strings.Contains(r.stderr, "line 3: bad base64") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("bad jsonl: %+v", r)
	}
	for _, line := range []string{`{"key":"a"}`, `{"key":"a","value":"b","x":1}`, `{"key":"a","value":"b"} 7`, `[1]`, `{"key":1,"value":"b"}`} {
		if _, _, err := parseJSONLine([]byte(line)); err == nil {
			t.Errorf("parseJSONLine(%s) accepted", line)
		}
	}
}

// TestImportCSV imports CSV with and without a header, quoted fields and a bad record.
func TestImportCSV(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	withHeader := filepath.Join(dir, "h.csv")
	writeFile(t, withHeader, []byte("Key,Value\nk1,\"a, \"\"quoted\"\"\nvalue\"\nk2,plain\n"))
	noHeader := filepath.Join(dir, "n.csv")
	writeFile(t, noHeader, []byte("k3,3\r\nk4,\n"))
	r := runKvsh(t, "", db, "-c", "import "+withHeader+"; import "+noHeader+"; .mode jsonl; scan")
	want := `{"key":"k1","value":"a, \"quoted\"\nvalue"}` + "\n" + `{"key":"k2","value":"plain"}` + "\n" +
		`{"key":"k3","value":"3"}` + "\n" + `{"key":"k4","value":""}` + "\n"
	if r.code != 0 || !strings.HasSuffix(r.stdout, want) || !strings.HasPrefix(r.stdout, "imported 2 pairs") {
		t.Fatalf("csv: %+v", r)
	}
	bad := filepath.Join(dir, "bad.csv")
	writeFile(t, bad, []byte("a,1\nb,2,3\n"))
	r = runKvsh(t, "", db, "-c", "import "+bad)
	if r.code != 1 || !strings.Contains(r.stderr, "wrong number of fields") || !strings.HasPrefix(r.stdout, "imported 1 pairs") {
		t.Fatalf("bad csv: %+v", r)
	}
}

// TestExportDir exports to a directory, verifies it, and skips keys that cannot be file names.
func TestExportDir(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	putAll(t, db, map[string]string{"a.txt": "A", "d/e/f": "\x00\x01", "d/e": "clash", "/abs": "x", "x/../y": "x", "\x00": "n"})
	out := filepath.Join(dir, "out")
	r := runKvsh(t, "", db, "-c", "export "+strconv.Quote(out)+"; verify "+strconv.Quote(out))
	if r.code != 0 || !strings.Contains(r.stdout, "exported 2 keys, 6 bytes") || !strings.Contains(r.stdout, "(skipped 4)") ||
		!strings.Contains(r.stdout, "verified 2 files: 0 mismatches, 0 missing") || strings.Count(r.stderr, "warning: skipping key") != 4 {
		t.Fatalf("export dir: %+v", r)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "d", "e")); !bytes.Equal(got, []byte("clash")) {
		t.Errorf("d/e = %q", got) // d/e sorts first; d/e/f then clashes with it
	}
	r = runKvsh(t, "", db, "-c", "export "+strconv.Quote(out))
	if r.code != 1 || !strings.Contains(r.stderr, "directory is not empty") {
		t.Fatalf("export to a non-empty directory: %+v", r)
	}
}

// TestCompletionHelpers checks the parsing and quoting behind tab completion.
func TestCompletionHelpers(t *testing.T) {
	p := scanPartial(`put a 1; get "x y`)
	if len(p.words) != 1 || p.words[0] != "get" || p.cur != `"x y` || p.start != 13 {
		t.Errorf("scanPartial: %+v", p)
	}
	if p := scanPartial("get "); len(p.words) != 1 || p.cur != "" || p.start != 4 {
		t.Errorf("scanPartial after a space: %+v", p)
	}
	for raw, want := range map[string]string{"": "", "ab": "ab", `"a b`: "a b", `'x\`: `x\`, "0x616": "a", `"\x0`: "?"} {
		got, ok := decodePartial(raw)
		if want == "?" {
			if ok {
				t.Errorf("decodePartial(%q) = %q, want failure", raw, got)
			}
			continue
		}
		if !ok || string(got) != want {
			t.Errorf("decodePartial(%q) = %q %v, want %q", raw, got, ok, want)
		}
	}
	for in, want := range map[string]string{"plain": "plain", "a b": `"a b"`, "0xab": `"0xab"`, "#x": `"#x"`, "a;b": `"a;b"`, "\x00": `"\x00"`, "": `""`} {
		if got := quoteArg([]byte(in), false); got != want {
			t.Errorf("quoteArg(%q) = %s, want %s", in, got, want)
		}
	}
	if got := quoteArg([]byte("a"), true); got != "0x61" {
		t.Errorf("hex quoteArg = %s", got)
	}
}

// TestExportFormats: export NAME writes JSON, JSON Lines or CSV when NAME ends in .json, .jsonl
// or .csv (any case), and import reads each back. CSV skips a pair holding "\r\n" (a CSV
// reader turns it into "\n") with a warning.
func TestExportFormats(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	pairs := binaryPairs()
	putAll(t, src, pairs)
	jsonl := runKvsh(t, "", src, "-c", ".mode jsonl; scan").stdout
	for _, name := range []string{"dump.json", "dump.jsonl", "DUMP.JSONL", "dump.csv", "Dump.Csv"} {
		file := filepath.Join(dir, name)
		r := runKvsh(t, "", src, "-c", "export "+strconv.Quote(file))
		want, wantSkip, wantWarn := "exported 7 keys, ", "", ""
		if strings.HasSuffix(strings.ToLower(name), ".csv") {
			want, wantSkip = "exported 6 keys, ", " (skipped 1)\n"
			wantWarn = `warning: skipping key quote"and\: a CSV field cannot hold "\r\n" (it reads back as "\n"): export to .jsonl` + "\n"
		}
		if r.code != 0 || !strings.HasPrefix(r.stdout, want) || !strings.HasSuffix(r.stdout, wantSkip) || r.stderr != wantWarn {
			t.Fatalf("export %s: %+v", name, r)
		}
		st, err := os.Stat(file)
		if err != nil || !st.Mode().IsRegular() {
			t.Fatalf("export %s made no regular file: %v", name, err)
		}
		got, _ := os.ReadFile(file)
		switch strings.ToLower(filepath.Ext(name)) {
		case ".json": // the listing of .mode json
			if listing := runKvsh(t, "", src, "-c", ".mode json; scan").stdout; string(got) != listing {
				t.Errorf("%s holds %q, want the .mode json listing %q", name, got, listing)
			}
			var arr []jsonPair
			if err := json.Unmarshal(got, &arr); err != nil || len(arr) != len(pairs) {
				t.Errorf("%s is not a JSON array of %d pairs: %v", name, len(pairs), err)
			}
		case ".jsonl":
			if string(got) != jsonl {
				t.Errorf("%s holds %q, want the .mode jsonl listing", name, got)
			}
		case ".csv":
			if !strings.HasPrefix(string(got), "key,value\n") {
				t.Errorf("%s starts with %q, want the key,value header", name, got[:min(len(got), 20)])
			}
		}
		dst := filepath.Join(dir, name+".db")
		r = runKvsh(t, "", dst, "-c", "import "+strconv.Quote(file))
		if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "imported "+strings.TrimPrefix(want, "exported ")[:2]+"pairs, ") {
			t.Fatalf("import %s: %+v", name, r)
		}
		wantPairs := pairs
		if strings.HasSuffix(strings.ToLower(name), ".csv") {
			wantPairs = maps.Clone(pairs)
			delete(wantPairs, "quote\"and\\")
		}
		samePairs(t, dumpJSONL(t, dst), wantPairs)
	}
	// -q silences the skip warning; the summary still counts it.
	r := runKvsh(t, "", "-q", src, "-c", "export "+strconv.Quote(filepath.Join(dir, "q.csv")))
	if r.code != 0 || r.stderr != "" || !strings.HasSuffix(r.stdout, " (skipped 1)\n") {
		t.Fatalf("export -q: %+v", r)
	}
	// A JSON file that is not an array of pairs stops the import with the element at fault.
	bad := filepath.Join(dir, "bad.json")
	writeFile(t, bad, []byte(`[{"key":"a","value":"1"}, {"key":"b"}]`))
	r = runKvsh(t, "", filepath.Join(dir, "bad.db"), "-c", "import "+strconv.Quote(bad))
	if r.code != 1 || !strings.HasPrefix(r.stdout, "imported 1 pairs") || !strings.Contains(r.stderr, "element 2: want {") {
		t.Fatalf("bad json: %+v", r)
	}
}

// TestExportRefuses: export gives only its error when it cannot start: a directory export onto
// an existing file refuses it and leaves it as it was; a file in a missing directory or a
// destination that is a directory print no "exported" line.
func TestExportRefuses(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	putAll(t, db, map[string]string{"a": "1"})
	file := filepath.Join(dir, "notes.txt")
	writeFile(t, file, []byte("keep me"))
	runKvsh(t, "", db, "-c", "export "+strconv.Quote(file)).expect(t, "",
		"error: export to "+file+": it exists and is not a directory (want a new or empty directory, or a file name ending in .json, .jsonl or .csv)\n", 1)
	if got, _ := os.ReadFile(file); string(got) != "keep me" {
		t.Errorf("the existing file now holds %q", got)
	}
	missing := filepath.Join(dir, "nonexistent", "x.jsonl")
	runKvsh(t, "", db, "-c", "export "+strconv.Quote(missing)).expect(t, "",
		"error: export: open "+missing+": no such file or directory\n", 1)
	sub := filepath.Join(dir, "d.json")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	runKvsh(t, "", db, "-c", "export "+strconv.Quote(sub)).expect(t, "", "error: export: open "+sub+": is a directory\n", 1)
}

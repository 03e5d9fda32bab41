package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairndb/cairn/wal"
)

// inspectDB builds a database for the inspection tests and closes it (Close checkpoints): 400
// keys over several leaves under one branch, a binary key, an empty value, a 9,000-byte value in
// a three-page overflow extent, and a free list after deletes and a second checkpoint.
func inspectDB(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var sb strings.Builder
	for i := range 400 {
		fmt.Fprintf(&sb, "{\"key\":\"k%04d\",\"value\":\"%s\"}\n", i, strings.Repeat("v", i%50))
	}
	fmt.Fprintf(&sb, "{\"key\":\"big\",\"value\":\"%s\"}\n", strings.Repeat("B", 9000))
	data := filepath.Join(dir, "data.jsonl")
	writeFile(t, data, []byte(sb.String()))
	db := filepath.Join(dir, "test.db")
	r := runKvsh(t, "", db, "-c", "import "+strconv.Quote(data)+`; checkpoint; del k0001; del k0002; put "bin\x00\xff" "x\ty"`)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("building the database: %+v", r)
	}
	return db
}

// field returns the value printed after label (a "  label  value" line) in out, in the section
// starting with the line that starts with section.
func field(t *testing.T, out, section, label string) string {
	t.Helper()
	rest := out
	if !strings.HasPrefix(out, section) {
		i := strings.Index(out, "\n"+section)
		if i < 0 {
			t.Fatalf("no section %q in:\n%s", section, out)
		}
		rest = out[i:]
	}
	m := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(label) + `  +(.*)$`).FindStringSubmatch(rest)
	if m == nil {
		t.Fatalf("no %q in section %q:\n%s", label, section, rest)
	}
	return m[1]
}

// fieldInt is field for a decimal number.
func fieldInt(t *testing.T, out, section, label string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(field(t, out, section, label), 10, 64)
	if err != nil {
		t.Fatalf("%s %s: %v", section, label, err)
	}
	return n
}

// TestInspectMeta checks .meta on a new database, after checkpoints, and with the older meta
// page damaged.
func TestInspectMeta(t *testing.T) {
	db := tempDB(t)
	r := runKvsh(t, "", db, "-c", ".meta")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf(".meta: %+v", r)
	}
	// A new file: sequence 0 in slot 0, 1 in slot 1 (current), both empty.
	want := regexp.MustCompile(`^meta page 0 \(offset 0\): valid
  magic         "cairnDB\\x00"
  version       4
  page size     4096
  database id   (0x[0-9a-f]{16})
  sequence      0
  LSN           0
  root          0
  page count    2
  free list     none
  catalog root  0
  checksum      0x[0-9a-f]{8} \(ok\)
meta page 1 \(offset 4096\): valid, current
  magic         "cairnDB\\x00"
  version       4
  page size     4096
  database id   (0x[0-9a-f]{16})
  sequence      1
(  .*\n)*$`)
	m := want.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != m[2] {
		t.Fatalf(".meta of a new database:\n%s", r.stdout)
	}

	// Two checkpoints (one by Close): slot 1 holds sequence 3, current.
	runKvsh(t, "", db, "-c", "put a 1; checkpoint; put b 2").expect(t, "", "", 0)
	r = runKvsh(t, "", db, "-c", ".meta")
	if !strings.Contains(r.stdout, "meta page 1 (offset 4096): valid, current\n") ||
		fieldInt(t, r.stdout, "meta page 1", "sequence") != 3 || fieldInt(t, r.stdout, "meta page 1", "LSN") != 2 ||
		fieldInt(t, r.stdout, "meta page 0", "sequence") != 2 || fieldInt(t, r.stdout, "meta page 0", "LSN") != 1 {
		t.Fatalf(".meta after two checkpoints:\n%s", r.stdout)
	}

	// Damage the older meta page (slot 0). Open accepts it only with newer records in the WAL,
	// so leave one there: kill kvsh after a commit, before its closing checkpoint.
	sh := start(t, db)
	sh.send("put c 3; get c")
	if got := sh.nextStdout(t); got != "3" {
		t.Fatalf("get c = %q", got)
	}
	sh.cmd.Process.Kill()
	sh.wait(t)
	flipFileByte(t, db, 40) // slot 0's root field: only the checksum notices
	r = runKvsh(t, "", db, "-c", ".meta")
	if r.code != 0 || r.stderr != "" ||
		!strings.Contains(r.stdout, "meta page 0 (offset 0): invalid: pager: meta page: checksum mismatch: corrupt data\n") ||
		!strings.Contains(field(t, r.stdout, "meta page 0", "checksum"), "(mismatch: the bytes give 0x") ||
		!strings.Contains(r.stdout, "meta page 1 (offset 4096): valid, current\n") {
		t.Fatalf(".meta with a damaged slot 0: %+v", r)
	}
}

// TestInspectPages checks the page counts of .pages against the meta page, and that .pages
// shows the file as of the last checkpoint.
func TestInspectPages(t *testing.T) {
	db := inspectDB(t)
	r := runKvsh(t, "", db, "-c", ".pages; .meta")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf(".pages: %+v", r)
	}
	meta := r.stdout[strings.Index(r.stdout, "meta page 0"):]
	cur := "meta page 0"
	if strings.Contains(meta, "meta page 1 (offset 4096): valid, current") {
		cur = "meta page 1"
	}
	count := fieldInt(t, meta, cur, "page count")
	rows := usageRows(t, r.stdout)
	var total uint64
	for _, row := range rows {
		total += row[0]
		if row[1] != row[0]*4096 {
			t.Errorf("bytes %d for %d pages", row[1], row[0])
		}
	}
	if total != count {
		t.Errorf("the classes add up to %d pages, the page count is %d:\n%s", total, count, r.stdout)
	}
	want := map[string][2]uint64{"meta": {2, 2}, "overflow": {3, 1}, "free-list": {1, 1}, "unreadable": {0, 0}}
	for name, w := range want {
		if got := rows[name]; got[0] != w[0] || got[2] != w[1] {
			t.Errorf("%s: %d pages in %d extents, want %d in %d", name, got[0], got[2], w[0], w[1])
		}
	}
	if rows["branch"][0] != 1 || rows["leaf"][0] < 4 || rows["unaccounted"][0] != 0 {
		t.Errorf("tree pages: %v", rows)
	}
	freeIDs := regexp.MustCompile(`(?m)^free list   (\d+) ids in a 1-page extent at page (\d+)$`).FindStringSubmatch(r.stdout)
	if freeIDs == nil || freeIDs[1] != strconv.FormatUint(rows["free"][0], 10) {
		t.Errorf("free list line vs %d free pages:\n%s", rows["free"][0], r.stdout)
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("page count  %d (%d bytes)\n", count, count*4096)) {
		t.Errorf("no page count line:\n%s", r.stdout)
	}

	// A commit after the checkpoint is not in the file: .pages does not change until the next.
	pages := r.stdout[:strings.Index(r.stdout, "meta page 0")]
	r = runKvsh(t, "", db, "-c", "put new 1; .pages; checkpoint; .pages")
	if !strings.HasPrefix(r.stdout, pages+"checkpoint  LSN 5, sequence 4,") {
		t.Errorf(".pages before and after a checkpoint:\n%s\nwant first\n%s", r.stdout, pages)
	}
}

// usageRows parses the type table of .pages: pages, bytes and extents (0 for "-") per type.
func usageRows(t *testing.T, out string) map[string][3]uint64 {
	t.Helper()
	return tableRows(t, out, "type ", int(numClasses))
}

// treeRows parses the tree table of .pages: pages, bytes and extents per tree.
func treeRows(t *testing.T, out string) map[string][3]uint64 {
	t.Helper()
	return tableRows(t, out, "tree ", -1)
}

// tableRows parses the .pages table whose header line starts with header: the rows "NAME
// PAGES BYTES EXTENTS" up to the next line that is not one, by name. want is the number of rows
// expected, -1 for any.
func tableRows(t *testing.T, out, header string, want int) map[string][3]uint64 {
	t.Helper()
	i := strings.Index(out, "\n"+header)
	if i < 0 {
		t.Fatalf("no table %q in:\n%s", header, out)
	}
	rows := make(map[string][3]uint64)
	re := regexp.MustCompile(`^(\S.*?) +(\d+) +(\d+) +(\d+|-)\n`)
	rest := out[i+1:]
	rest = rest[strings.Index(rest, "\n")+1:]
	for m := re.FindStringSubmatch(rest); m != nil; m = re.FindStringSubmatch(rest) {
		rest = rest[len(m[0]):]
		var row [3]uint64
		for i := range row {
			row[i], _ = strconv.ParseUint(m[i+2], 10, 64)
		}
		rows[m[1]] = row
	}
	if want >= 0 && len(rows) != want {
		t.Fatalf("table %q has %d rows, want %d:\n%s", header, len(rows), want, out)
	}
	return rows
}

// TestInspectPage follows the tree with .page: the root branch, a leaf with the binary key,
// the overflow extent and a page inside it, the free-list extent, a free page, the meta pages,
// and the errors for bad arguments.
func TestInspectPage(t *testing.T) {
	db := inspectDB(t)
	meta := runKvsh(t, "", db, "-c", ".meta").stdout
	cur := "meta page 0"
	if strings.Contains(meta, "meta page 1 (offset 4096): valid, current") {
		cur = "meta page 1"
	}
	root := fieldInt(t, meta, cur, "root")
	r := runKvsh(t, "", db, "-c", fmt.Sprintf(".page %d", root))
	if r.code != 0 || field(t, r.stdout, "page", "type") != "1 (branch)" || field(t, r.stdout, "page", "checksum")[10:] != " (ok)" {
		t.Fatalf(".page root: %+v", r)
	}
	first := regexp.MustCompile(`(?m)^  0  +(\d+)  +big$`).FindStringSubmatch(r.stdout)
	if first == nil {
		t.Fatalf("root branch:\n%s", r.stdout)
	}
	r = runKvsh(t, "", db, "-c", ".page "+first[1])
	ovf := regexp.MustCompile(`(?m)^  0 +big +overflow page (\d+) \(9000 bytes\)$`).FindStringSubmatch(r.stdout)
	if r.code != 0 || field(t, r.stdout, "page", "type") != "2 (leaf)" || ovf == nil ||
		!regexp.MustCompile(`(?m)^  1 +"bin\\x00\\xff" +"x\\ty" \(3 bytes\)$`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^  2 +k0000 +"" \(0 bytes\)$`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^  3 +k0003 +vvv \(3 bytes\)$`).MatchString(r.stdout) {
		t.Fatalf("first leaf: %+v", r)
	}
	id, _ := strconv.ParseUint(ovf[1], 10, 64)
	r = runKvsh(t, "", db, "-c", fmt.Sprintf(".page %d; .page %d", id, id+2))
	want := fmt.Sprintf("page %d is page 3 of 3 of the overflow extent at page %d (.page %d shows it)\n", id+2, id, id)
	if r.code != 0 || field(t, r.stdout, "page", "type") != "3 (overflow)" || field(t, r.stdout, "page", "extent") != "3 pages (12288 bytes)" ||
		!strings.Contains(r.stdout, "  data: "+strings.Repeat("B", maxInspectField)+" … (12264 bytes)\n") || !strings.HasSuffix(r.stdout, want) {
		t.Fatalf("overflow extent: %+v", r)
	}

	fl := regexp.MustCompile(`page (\d+), 1 page`).FindStringSubmatch(field(t, meta, cur, "free list"))
	r = runKvsh(t, "", db, "-c", ".page "+fl[1])
	ids := regexp.MustCompile(`(?m)^  ids: (\d+)\n    (\d+)`).FindStringSubmatch(r.stdout)
	if r.code != 0 || field(t, r.stdout, "page", "type") != "4 (free-list)" || ids == nil || ids[1] == "0" {
		t.Fatalf("free list: %+v", r)
	}
	r = runKvsh(t, "", db, "-c", ".page "+ids[2])
	if r.code != 0 || !strings.HasSuffix(r.stdout, "): free (in the free list of the checkpoint at LSN 4); its bytes are not read\n") {
		t.Fatalf("free page: %+v", r)
	}

	r = runKvsh(t, "", db, "-c", ".page 1; .page 0")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "meta page 1 (offset 4096): valid") || !strings.Contains(r.stdout, "\nmeta page 0 (offset 0): valid") {
		t.Fatalf("meta pages: %+v", r)
	}
	count := fieldInt(t, meta, cur, "page count")
	runKvsh(t, "", db, "-c", fmt.Sprintf(".page %d; .page x; .page 0x01; .page 99999999999999999999; .page", count)).expect(t, "",
		fmt.Sprintf("error: page %d is past the end: the checkpoint counts %d pages\n", count, count)+
			"error: usage: .page N (N is a page number, not x)\n"+
			`error: usage: .page N (N is a page number, not "\x01")`+"\n"+
			"error: usage: .page N (N is a page number, not 99999999999999999999)\n"+
			"error: usage: .page N\n", 1)
}

// TestInspectCorruptPages damages pages of a closed database: .page gives one error line for
// each (after the header, when one could be read), .pages counts them as unreadable, nothing
// panics, and the shell goes on.
func TestInspectCorruptPages(t *testing.T) {
	db := inspectDB(t)
	meta := runKvsh(t, "", db, "-c", ".meta").stdout
	cur := "meta page 0"
	if strings.Contains(meta, "meta page 1 (offset 4096): valid, current") {
		cur = "meta page 1"
	}
	root := fieldInt(t, meta, cur, "root")
	count := fieldInt(t, meta, cur, "page count")
	branch := runKvsh(t, "", db, "-c", fmt.Sprintf(".page %d", root)).stdout
	leaves := regexp.MustCompile(`(?m)^  \d+  +(\d+)  +\S+$`).FindAllStringSubmatch(branch, -1)
	if len(leaves) < 4 {
		t.Fatalf("root branch:\n%s", branch)
	}
	garbled, _ := strconv.ParseUint(leaves[1][1], 10, 64)
	huge, _ := strconv.ParseUint(leaves[2][1], 10, 64)
	bad, _ := strconv.ParseUint(leaves[3][1], 10, 64)
	flipFileByte(t, db, int64(garbled)*4096+200)                           // a key byte: checksum mismatch
	writeFileAt(t, db, int64(huge)*4096+8, []byte{0xff, 0xff, 0xff, 0x7f}) // extent length past the end
	writeFileAt(t, db, int64(bad)*4096+6, []byte{0xff, 0x7f})              // element count, then resealed
	reseal(t, db, bad)

	r := runKvsh(t, "", db, "-c", fmt.Sprintf(".page %d; .page %d; .page %d; .pages; .page %d", garbled, huge, bad, root))
	wantErr := fmt.Sprintf("error: pager: page %d: checksum mismatch: corrupt data\n", garbled) +
		fmt.Sprintf("error: pager: page %d: extent of 2147483648 pages passes the end (%d pages): corrupt data\n", huge, count) +
		fmt.Sprintf("error: btree: page %d: 32767 elements overflow the extent: corrupt data\n", bad)
	if r.code != 1 || r.stderr != wantErr {
		t.Fatalf("stderr %q, want %q", r.stderr, wantErr)
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("page %d (offset %d, checkpoint LSN 4)\n", garbled, garbled*4096)) ||
		!strings.Contains(r.stdout, "(mismatch: the bytes give 0x") || !strings.Contains(r.stdout, "  elements   32767\n") {
		t.Fatalf("headers of damaged pages:\n%s", r.stdout)
	}
	rows := usageRows(t, r.stdout)
	if rows["unreadable"][0] != 3 || strings.Count(r.stdout, "\nproblem: ") != 3 {
		t.Fatalf(".pages of a damaged file:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "  #  child  key\n") {
		t.Fatal("the shell did not go on after the errors")
	}

	// Every page id, and a few past the end, one line of error at most each and no panic.
	var cmds []string
	for id := range count + 3 {
		cmds = append(cmds, fmt.Sprintf(".page %d", id))
	}
	r = runKvsh(t, "", db, "-c", strings.Join(cmds, "; ")+"; put after 1; get after")
	if !strings.HasSuffix(r.stdout, "\n1\n") || strings.Contains(r.stderr, "panic") {
		t.Fatalf("walking every page: stdout ends %q, stderr %q", r.stdout[max(0, len(r.stdout)-50):], r.stderr)
	}
	for l := range strings.Lines(r.stderr) {
		if !strings.HasPrefix(l, "error: ") {
			t.Fatalf("stderr line %q", l)
		}
	}
	if n := strings.Count(r.stderr, "\n"); n != 6 { // three damaged pages, three past the end
		t.Fatalf("%d error lines:\n%s", n, r.stderr)
	}
}

// TestInspectWAL checks .wal on a live database: the records since the checkpoint, decoded, in
// the first segment, then, after a checkpoint (which rotates to the second segment and starts a
// new generation in the first), the record written since, in the second.
func TestInspectWAL(t *testing.T) {
	db := tempDB(t)
	r := runKvsh(t, "", db, "-c", `put a 1; put 0x00ff "xyz"; del a; begin; put b 2; put c 3; commit; .wal; checkpoint; put d 4; .wal`)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf(".wal: %+v", r)
	}
	id := regexp.MustCompile(`database id (0x[0-9a-f]{16})`).FindStringSubmatch(r.stdout)
	if id == nil {
		t.Fatalf("no database id:\n%s", r.stdout)
	}
	want := `LSN 1  batch 1  offset 1024  6 bytes
  put key=a, value 1 bytes
LSN 2  batch 2  offset 1056  9 bytes
  put key="\x00\xff", value 3 bytes
LSN 3  batch 3  offset 1096  4 bytes
  delete key=a
LSN 4  batch 4  offset 1128  11 bytes
  put key=b, value 1 bytes
  put key=c, value 1 bytes
file     {db}-wal, 262144 bytes, format version 3, generation 1, database id {id} (the page file's)
records  4 after the checkpoint at LSN 0 (LSN 1..4)
free     260976 bytes after offset 1168: preallocated (zeros, or records of earlier generations)
role     current: commits are appended here
file     {db}-wal2, 262144 bytes, format version 3, generation 2, database id {id} (the page file's)
records  0 after the checkpoint at LSN 0
free     261120 bytes after offset 1024: preallocated (zeros, or records of earlier generations)
role     spare: the next checkpoint switches to it
LSN 5  batch 5  offset 1024  6 bytes
  put key=d, value 1 bytes
file     {db}-wal, 262144 bytes, format version 3, generation 3, database id {id} (the page file's)
records  0 after the checkpoint at LSN 4
free     261120 bytes after offset 1024: preallocated (zeros, or records of earlier generations)
role     spare: the next checkpoint switches to it
file     {db}-wal2, 262144 bytes, format version 3, generation 2, database id {id} (the page file's)
records  1 after the checkpoint at LSN 4 (LSN 5..5)
free     261088 bytes after offset 1056: preallocated (zeros, or records of earlier generations)
role     current: commits are appended here
`
	want = strings.NewReplacer("{db}", db, "{id}", id[1]).Replace(want)
	if r.stdout != want {
		t.Fatalf(".wal printed\n%s\nwant\n%s", r.stdout, want)
	}
}

// TestInspectWALBuckets checks that .wal decodes the bucket operations of real records.
func TestInspectWALBuckets(t *testing.T) {
	db := tempDB(t)
	r := runKvsh(t, "", db, "-c", `mkbucket u; begin; use u; put k v; use; put a 1; use u; del k; commit; `+
		`begin; rmbucket u; mkbucket "x\ty"; commit; .wal`)
	want := `LSN 1  batch 1  offset 1024  4 bytes
  create bucket "u"
LSN 2  batch 2  offset 1056  22 bytes
  select bucket "u"
  put key=k, value 1 bytes
  select the default key space
  put key=a, value 1 bytes
  select bucket "u"
  delete key=k
LSN 3  batch 3  offset 1104  9 bytes
  delete bucket "u"
  create bucket "x\ty"
`
	if r.code != 0 || !strings.HasPrefix(r.stdout, want) || r.stderr != "warning: bucket u no longer exists: back to the default key space\n" {
		t.Fatalf(".wal printed\n%s\nwant first\n%s\n(stderr %q)", r.stdout, want, r.stderr)
	}
}

// TestInspectPagesBuckets checks that .pages accounts for every page of a database with buckets
// and a deleted bucket whose pages are still on the drop stack at the checkpoint: the trees of
// the buckets, the catalog and the deleted bucket's extents, and no page unaccounted.
func TestInspectPagesBuckets(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	var sb strings.Builder
	for i := range 600 { // 600 overflow values: more extents than one commit frees
		fmt.Fprintf(&sb, "{\"key\":\"k%04d\",\"value\":\"%s\"}\n", i, strings.Repeat("v", 5000))
	}
	data := filepath.Join(dir, "data.jsonl")
	writeFile(t, data, []byte(sb.String()))
	r := runKvsh(t, "", db, "-c", `mkbucket users; mkbucket big; mkbucket empty; mkbucket "bin\x00"; use users; put a 1; `+
		`put b `+strings.Repeat("x", 9000)+`; use big; import `+data+`; use; put d 1; checkpoint; rmbucket big; checkpoint; `+
		`.pages; .meta; check`)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf(".pages: %+v", r)
	}
	rows, trees := usageRows(t, r.stdout), treeRows(t, r.stdout)
	count := fieldInt(t, r.stdout, "meta page 1", "page count") // slot 1 holds the third checkpoint, current
	var total uint64
	for _, row := range rows {
		total += row[0]
	}
	if total != count || rows["unaccounted"][0] != 0 || rows["unreadable"][0] != 0 || strings.Contains(r.stdout, "problem:") {
		t.Fatalf("page count %d, the types add up to %d:\n%s", count, total, r.stdout)
	}
	want := map[string][2]uint64{"default": {1, 1}, "catalog": {1, 1}, "bucket empty": {0, 0}, "bucket users": {4, 2},
		`bucket "bin\x00"`: {0, 0}}
	for name, w := range want {
		if got, ok := trees[name]; !ok || got[0] != w[0] || got[2] != w[1] {
			t.Errorf("tree %s: %v, want %d pages in %d extents", name, got, w[0], w[1])
		}
	}
	if d := trees["deleted buckets"]; d[0] < 300 || d[2] < 150 || len(trees) != 6 {
		t.Errorf("trees %v", trees)
	}
	if fieldInt(t, r.stdout, "meta page 1", "catalog root") == 0 || !strings.HasSuffix(r.stdout, "\nok\n") {
		t.Errorf(".meta and check:\n%s", r.stdout)
	}
	// Once later commits have freed the deleted bucket, its pages are free.
	r = runKvsh(t, "", db, "-c", "put e 1; put f 1; put g 1; checkpoint; .pages")
	if trees := treeRows(t, r.stdout); len(trees) != 5 || usageRows(t, r.stdout)["unaccounted"][0] != 0 {
		t.Errorf("after the drop: %+v", r)
	}
}

// TestInspectPagesBucketsDamaged damages the bucket catalog: a bad entry (resealed, so only its
// meaning is wrong) is a problem and leaves the bucket's pages unaccounted; an unreadable catalog
// page is one problem, and .pages goes on.
func TestInspectPagesBucketsDamaged(t *testing.T) {
	db := tempDB(t)
	runKvsh(t, "", db, "-c", "mkbucket users; use users; put a 1; put b 2").expect(t, "", "", 0)
	meta := runKvsh(t, "", db, "-c", ".meta").stdout
	cur := "meta page 0"
	if strings.Contains(meta, "meta page 1 (offset 4096): valid, current") {
		cur = "meta page 1"
	}
	cat := fieldInt(t, meta, cur, "catalog root")
	page := runKvsh(t, "", db, "-c", fmt.Sprintf(".page %d", cat)).stdout
	m := regexp.MustCompile(`(?m)^  0  "\\x01users"  (".*") \(9 bytes\)$`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("catalog page:\n%s", page)
	}
	entry, _ := strconv.Unquote(m[1])
	b, _ := os.ReadFile(db)
	off := strings.Index(string(b[cat*4096:(cat+1)*4096]), entry)
	writeFileAt(t, db, int64(cat)*4096+int64(off), []byte{7}) // the kind byte
	reseal(t, db, cat)
	r := runKvsh(t, "", db, "-c", ".pages")
	want := fmt.Sprintf("problem: bucket catalog: page %d: bad entry \"\\x01users\" (9 bytes)\n", cat)
	if r.code != 0 || !strings.HasSuffix(r.stdout, want) || usageRows(t, r.stdout)["unaccounted"][0] != 1 || len(treeRows(t, r.stdout)) != 2 {
		t.Fatalf(".pages with a bad catalog entry: %+v", r)
	}
	flipFileByte(t, db, int64(cat)*4096+100)
	r = runKvsh(t, "", db, "-c", ".pages; count")
	want = fmt.Sprintf("problem: pager: page %d: checksum mismatch: corrupt data\n0\n", cat)
	if r.code != 0 || !strings.HasSuffix(r.stdout, want) || usageRows(t, r.stdout)["unreadable"][0] != 1 {
		t.Fatalf(".pages with an unreadable catalog: %+v", r)
	}
}

// TestDescribeRedo checks the decoding of redo payloads, including op codes kvsh does not know
// (newer formats) and damage.
func TestDescribeRedo(t *testing.T) {
	tests := []struct {
		name    string
		payload []byte
		want    []string
	}{
		{"put and delete", []byte{1, 1, 1, 'k', 2, 'v', 'w', 2, 2, 0, 0xff}, []string{"put key=k, value 2 bytes", `delete key="\x00\xff"`}},
		{"empty value", []byte{1, 1, 1, 'k', 0}, []string{"put key=k, value 0 bytes"}},
		{"unknown op after a put", []byte{1, 1, 1, 'k', 0, 6, 3, 'b', 'k', 't', 1}, []string{"put key=k, value 0 bytes", "op 0x06 (6 bytes)"}},
		{"bucket ops", []byte{1, 4, 1, 'u', 3, 1, 'u', 1, 1, 'k', 1, 'v', 3, 0, 2, 1, 'k', 5, 2, 0, 0xff},
			[]string{`create bucket "u"`, `select bucket "u"`, "put key=k, value 1 bytes", "select the default key space", "delete key=k", `delete bucket "\x00\xff"`}},
		{"long bucket name cut", append([]byte{1, 4, 70}, make([]byte, 70)...), []string{`create bucket "` + strings.Repeat(`\x00`, maxInspectField) + `" … (70 bytes)`}},
		{"bucket name length past the end", []byte{1, 3, 5, 'u'}, []string{"op 0x03: bad key length (3 bytes left)"}},
		{"unknown op first", []byte{1, 0x10, 0}, []string{"op 0x10 (2 bytes)"}},
		{"long key cut", append([]byte{1, 2, 100}, make([]byte, 100)...), []string{`delete key="` + strings.Repeat(`\x00`, maxInspectField) + `" … (100 bytes)`}},
		{"unknown record type", []byte{7, 1, 2}, []string{"record type 0x07 (3 bytes)"}},
		{"empty", nil, []string{"empty payload"}},
		{"key length past the end", []byte{1, 2, 9, 'k'}, []string{"op 0x02: bad key length (3 bytes left)"}},
		{"value length past the end", []byte{1, 1, 1, 'k', 9}, []string{"put key=k: bad value length"}},
		{"bad uvarint", []byte{1, 1, 0xff, 0xff}, []string{"op 0x01: bad key length (3 bytes left)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := describeRedo(tt.payload)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("describeRedo(% x) = %q, want %q", tt.payload, got, tt.want)
			}
		})
	}
}

// flipFileByte inverts the byte at off in the file at path.
func flipFileByte(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	writeFileAt(t, path, off, []byte{^b[off]})
}

// writeFileAt writes p at off in the file at path.
func writeFileAt(t *testing.T, path string, off int64, p []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(p, off); err != nil {
		t.Fatal(err)
	}
}

// reseal rewrites the checksum of the one-page extent at id (4 KiB pages) so that it matches
// the page's bytes again (docs/FORMAT.md: CRC32C of [4, 4096) seeded with the page id).
func reseal(t *testing.T, path string, id uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := b[id*4096 : (id+1)*4096]
	sum := crc32.Update(uint32(id)^uint32(id>>32), crc32.MakeTable(crc32.Castagnoli), page[4:])
	writeFileAt(t, path, int64(id)*4096, binary.LittleEndian.AppendUint32(nil, sum))
}

// TestSegmentRoles checks the role line of .wal for each state of the two segments, including
// the one a live shell rarely catches: a checkpoint in progress, after its switch.
func TestSegmentRoles(t *testing.T) {
	seg := func(gen uint32, records int) wal.ScanInfo {
		return wal.ScanInfo{Version: 3, Generation: gen, Records: records}
	}
	cases := []struct {
		name string
		info [2]wal.ScanInfo
		want [2]string
	}{
		{"new database", [2]wal.ScanInfo{seg(1, 0), seg(2, 0)}, [2]string{"current", "spare"}},
		{"commits in the first", [2]wal.ScanInfo{seg(1, 4), seg(2, 0)}, [2]string{"current", "spare"}},
		{"checkpoint in progress", [2]wal.ScanInfo{seg(1, 4), seg(2, 1)}, [2]string{"previous", "current"}},
		{"after the checkpoint", [2]wal.ScanInfo{seg(3, 0), seg(2, 1)}, [2]string{"spare", "current"}},
		{"other segment without a header", [2]wal.ScanInfo{seg(5, 2), {Fresh: true}}, [2]string{"current", ""}},
		{"no WAL yet", [2]wal.ScanInfo{{Fresh: true}, {Fresh: true}}, [2]string{"", ""}},
	}
	for _, c := range cases {
		got := segmentRoles(c.info)
		for i := range got {
			if !strings.HasPrefix(got[i], c.want[i]) || (c.want[i] == "") != (got[i] == "") {
				t.Errorf("%s: segment %d is %q, want %q", c.name, i, got[i], c.want[i])
			}
		}
	}
}

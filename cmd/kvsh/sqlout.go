package main

// Printing the rows of a SQL query in the shell's output mode. The table mode aligns columns
// from the first tableHeldRows rows it holds; later rows stream with those widths (a wider value
// pushes its row out of line rather than holding a large result in memory).

import (
	"bufio"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cairndb/cairn/sql/value"
)

// tableHeldRows is the number of rows the table mode holds to choose the column widths.
const tableHeldRows = 1000

// maxCell is the number of bytes of a TEXT cell (or of a BLOB's hex) the table mode shows; a
// longer value is cut and followed by " … (N bytes)", as listings cut values.
const maxCell = maxListValue

// rowPrinter prints the rows of one query.
type rowPrinter interface {
	row(vals []value.Value) error
	end() error
}

// newRowPrinter returns the printer of the shell's mode for a result with the given columns.
func newRowPrinter(out *bufio.Writer, mode outputMode, cols []string) rowPrinter {
	switch mode {
	case modeJSON, modeJSONL:
		return &jsonRows{out: out, cols: cols, lines: mode == modeJSONL}
	case modeCSV:
		return &csvRows{w: csv.NewWriter(out), cols: cols}
	case modeRaw, modeHex:
		return &plainRows{out: out, hex: mode == modeHex}
	}
	return &tableRowsPrinter{out: out, cols: cols}
}

// tableCell is one rendered cell of the table mode.
type tableCell struct {
	text    string
	numeric bool
	null    bool
}

// tableRowsPrinter is the table mode: column names, a line of dashes, then the rows, columns
// separated by two spaces. Numbers are right-aligned; in a column whose values are all numbers
// or NULL, the name and the NULLs are too.
type tableRowsPrinter struct {
	out     *bufio.Writer
	cols    []string
	held    [][]tableCell
	widths  []int
	numCols []bool
	started bool // the header is printed: rows stream
}

func (p *tableRowsPrinter) row(vals []value.Value) error {
	cells := make([]tableCell, len(vals))
	for i, v := range vals {
		cells[i] = tableCellOf(v)
	}
	p.addCells(cells)
	return nil
}

// addCells prints (or holds) one row of rendered cells.
func (p *tableRowsPrinter) addCells(cells []tableCell) {
	if p.started {
		p.printRow(cells)
		return
	}
	p.held = append(p.held, cells)
	if len(p.held) == tableHeldRows {
		p.start()
	}
}

func (p *tableRowsPrinter) end() error {
	if !p.started && len(p.held) > 0 {
		p.start()
	}
	return nil
}

// start chooses the widths from the held rows and prints the header and the held rows.
func (p *tableRowsPrinter) start() {
	p.started = true
	n := len(p.cols)
	p.widths = make([]int, n)
	p.numCols = make([]bool, n)
	names := make([]string, n)
	for i, c := range p.cols {
		names[i] = formatBytes([]byte(c))
		p.widths[i] = textWidth(names[i])
		numbers, others := 0, 0
		for _, r := range p.held {
			p.widths[i] = max(p.widths[i], textWidth(r[i].text))
			switch {
			case r[i].numeric:
				numbers++
			case !r[i].null:
				others++
			}
		}
		p.numCols[i] = numbers > 0 && others == 0
	}
	header := make([]tableCell, n)
	dashes := make([]tableCell, n)
	for i := range n {
		header[i] = tableCell{text: names[i], numeric: p.numCols[i]}
		dashes[i] = tableCell{text: strings.Repeat("-", p.widths[i])}
	}
	p.printRow(header)
	p.printRow(dashes)
	for _, r := range p.held {
		p.printRow(r)
	}
	p.held = nil
}

// printRow prints one line of cells padded to the column widths (no trailing blanks).
func (p *tableRowsPrinter) printRow(cells []tableCell) {
	var line strings.Builder
	for i, c := range cells {
		if i > 0 {
			line.WriteString("  ")
		}
		pad := max(p.widths[i]-textWidth(c.text), 0)
		if c.numeric || (c.null && p.numCols[i]) {
			line.WriteString(strings.Repeat(" ", pad))
			line.WriteString(c.text)
		} else {
			line.WriteString(c.text)
			line.WriteString(strings.Repeat(" ", pad))
		}
	}
	p.out.WriteString(strings.TrimRight(line.String(), " "))
	p.out.WriteByte('\n')
}

// tableCellOf renders a value for the table mode: NULL, numbers as SQLite prints them, TEXT as
// other listings print bytes (Go-quoted unless printable, cut after maxCell bytes), and BLOB
// as a SQL blob literal, x'cafe'.
func tableCellOf(v value.Value) tableCell {
	switch v.Kind() {
	case value.Null:
		return tableCell{text: "NULL", null: true}
	case value.Integer, value.Real:
		return tableCell{text: string(v.AppendText(nil)), numeric: true}
	case value.Blob:
		b := v.Bytes()
		if len(b) > maxCell/2 {
			return tableCell{text: fmt.Sprintf("x'%x' … (%d bytes)", b[:maxCell/2], len(b))}
		}
		return tableCell{text: fmt.Sprintf("x'%x'", b)}
	}
	return tableCell{text: formatCut(v.Bytes(), maxCell)}
}

// textWidth is the number of terminal columns of s, counted as one per character.
func textWidth(s string) int { return utf8.RuneCountInString(s) }

// jsonRows is the json mode (one array of objects, one object per line) and the jsonl mode (one
// object per line). Each object has the columns in order, keyed by name: INTEGER and REAL as
// JSON numbers (REAL as SQLite renders it; infinities as ±9.0e+999, as SQLite's JSON functions
// write them), TEXT as a string, BLOB as {"base64":"…"}, NULL as null.
type jsonRows struct {
	out   *bufio.Writer
	cols  []string
	lines bool // jsonl
	n     int
}

func (p *jsonRows) row(vals []value.Value) error {
	if !p.lines {
		if p.n == 0 {
			p.out.WriteString("[\n")
		} else {
			p.out.WriteString(",\n")
		}
	}
	p.n++
	p.out.WriteByte('{')
	for i, v := range vals {
		if i > 0 {
			p.out.WriteByte(',')
		}
		name, err := marshalNoHTML(p.cols[i])
		if err != nil {
			return err
		}
		p.out.Write(name)
		p.out.WriteByte(':')
		if err := appendJSONValue(p.out, v); err != nil {
			return err
		}
	}
	p.out.WriteByte('}')
	if p.lines {
		p.out.WriteByte('\n')
	}
	return nil
}

func (p *jsonRows) end() error {
	switch {
	case p.lines:
	case p.n == 0:
		p.out.WriteString("[]\n")
	default:
		p.out.WriteString("\n]\n")
	}
	return nil
}

// appendJSONValue writes v as JSON (see jsonRows), as the SQL layer renders a value for JSON
// results (value.AppendJSON, which cairnsql.AppendJSON uses too).
func appendJSONValue(out *bufio.Writer, v value.Value) error {
	var buf [64]byte
	_, err := out.Write(value.AppendJSON(buf[:0], v))
	return err
}

// csvRows is the csv mode: a record of the column names, then one record per row (RFC 4180,
// encoding/csv): NULL as an empty field, numbers as SQLite prints them, TEXT and BLOB as their
// bytes.
type csvRows struct {
	w      *csv.Writer
	cols   []string
	header bool
}

func (p *csvRows) row(vals []value.Value) error {
	if !p.header {
		p.header = true
		if err := p.w.Write(p.cols); err != nil {
			return err
		}
	}
	rec := make([]string, len(vals))
	for i, v := range vals {
		rec[i] = string(v.AppendText(nil))
	}
	return p.w.Write(rec)
}

func (p *csvRows) end() error {
	p.w.Flush()
	return p.w.Error()
}

// plainRows is the raw mode (the values separated by tabs, bytes as stored, NULL as nothing; no
// header) and the hex mode (the same with TEXT and BLOB values in lowercase hex and NULL as
// NULL).
type plainRows struct {
	out *bufio.Writer
	hex bool
}

func (p *plainRows) row(vals []value.Value) error {
	for i, v := range vals {
		if i > 0 {
			p.out.WriteByte('\t')
		}
		switch {
		case p.hex && v.IsNull():
			p.out.WriteString("NULL")
		case p.hex && (v.Kind() == value.Text || v.Kind() == value.Blob):
			p.out.WriteString(hex.EncodeToString(v.Bytes()))
		default:
			p.out.Write(v.AppendText(nil))
		}
	}
	p.out.WriteByte('\n')
	return nil
}

func (p *plainRows) end() error { return nil }

// planRow is one row of EXPLAIN QUERY PLAN.
type planRow struct {
	id, parent int64
	detail     string
}

// isPlanResult reports whether a query's columns are those of EXPLAIN QUERY PLAN.
func isPlanResult(text string, cols []string) bool {
	return strings.EqualFold(firstWord(text), "explain") && strings.Join(cols, ",") == "id,parent,notused,detail"
}

// printPlan prints EXPLAIN QUERY PLAN rows as a tree, as SQLite's shell does:
//
//	QUERY PLAN
//	|--SCAN t
//	`--SEARCH u USING INDEX u_b (b=?)
func printPlan(out *bufio.Writer, rows []planRow) {
	out.WriteString("QUERY PLAN\n")
	var walk func(parent int64, prefix string, depth int)
	walk = func(parent int64, prefix string, depth int) {
		if depth > len(rows) {
			return // parents that form a cycle: no deeper than there are rows
		}
		var kids []planRow
		for _, r := range rows {
			if r.parent == parent {
				kids = append(kids, r)
			}
		}
		for i, r := range kids {
			branch, indent := "|--", "|  "
			if i == len(kids)-1 {
				branch, indent = "`--", "   "
			}
			fmt.Fprintf(out, "%s%s%s\n", prefix, branch, r.detail)
			walk(r.id, prefix+indent, depth+1)
		}
	}
	walk(0, "", 0)
}

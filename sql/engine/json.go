package engine

import (
	"context"
	"io"

	"github.com/cairndb/cairn/sql/value"
)

// AppendJSON runs the query and appends its result to dst as a JSON array of objects, one per
// row, keyed by column name in column order, each value as value.AppendJSON writes it. The values
// go from the rows to dst directly, with no conversion to Go values in between. A query with no
// rows appends [].
func (st *Stmt) AppendJSON(ctx context.Context, dst []byte, args []value.Value) ([]byte, error) {
	rows, err := st.Query(ctx, args)
	if err != nil {
		return dst, err
	}
	defer rows.Close()
	keys := jsonKeys(rows.Columns())
	dst = append(dst, '[')
	n := 0
	for rows.Next() {
		dst = appendJSONRow(dst, n, keys, rows.Row())
		n++
	}
	if n > 0 {
		dst = append(dst, '\n')
	}
	return append(dst, ']'), rows.Err()
}

// WriteJSON runs the query and writes its result to w as AppendJSON formats it, in pieces of
// about 64 KiB.
func (st *Stmt) WriteJSON(ctx context.Context, w io.Writer, args []value.Value) error {
	rows, err := st.Query(ctx, args)
	if err != nil {
		return err
	}
	defer rows.Close()
	keys := jsonKeys(rows.Columns())
	buf := append(make([]byte, 0, 64<<10), '[')
	n := 0
	for rows.Next() {
		buf = appendJSONRow(buf, n, keys, rows.Row())
		n++
		if len(buf) >= 60<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n > 0 {
		buf = append(buf, '\n')
	}
	_, err = w.Write(append(buf, "]\n"...))
	return err
}

// jsonKeys returns each column name as a JSON string followed by a colon.
func jsonKeys(cols []string) [][]byte {
	keys := make([][]byte, len(cols))
	for i, c := range cols {
		keys[i] = append(value.AppendJSONString(nil, []byte(c)), ':')
	}
	return keys
}

// appendJSONRow appends row number n (0 first) as an object, after a comma and a newline.
func appendJSONRow(dst []byte, n int, keys [][]byte, row []value.Value) []byte {
	if n > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, '\n', '{')
	for i, v := range row {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, keys[i]...)
		dst = value.AppendJSON(dst, v)
	}
	return append(dst, '}')
}

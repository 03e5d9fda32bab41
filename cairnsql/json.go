package cairnsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
)

// AppendJSON runs query (one statement) on db and appends its result to dst as a JSON array of
// objects, one per row, keyed by column name: INTEGER and REAL as numbers, TEXT as strings, BLOB
// as {"base64":"..."}, NULL as null (value.AppendJSON). The values go from the engine's rows to
// dst without boxing each cell into an interface, as Rows.Scan must. args are as for
// (*sql.DB).Query, sql.Named included.
func AppendJSON(ctx context.Context, db *sql.DB, dst []byte, query string, args ...any) ([]byte, error) {
	err := withConn(ctx, db, query, args, func(c *conn, s *stmt, vals []driver.NamedValue) error {
		bound, err := bindArgs(s.st, vals)
		if err != nil {
			return err
		}
		dst, err = s.st.AppendJSON(ctx, dst, bound)
		return err
	})
	return dst, err
}

// WriteJSON is AppendJSON writing to w, in pieces of about 64 KiB, followed by a newline.
func WriteJSON(ctx context.Context, db *sql.DB, w io.Writer, query string, args ...any) error {
	return withConn(ctx, db, query, args, func(c *conn, s *stmt, vals []driver.NamedValue) error {
		bound, err := bindArgs(s.st, vals)
		if err != nil {
			return err
		}
		return s.st.WriteJSON(ctx, w, bound)
	})
}

// withConn runs fn on a connection of db with query prepared and args checked.
func withConn(ctx context.Context, db *sql.DB, query string, args []any, fn func(*conn, *stmt, []driver.NamedValue) error) error {
	sc, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer sc.Close()
	return sc.Raw(func(dc any) error {
		c, ok := dc.(*conn)
		if !ok {
			return errors.New("cairnsql: not a cairn connection")
		}
		st, err := c.preparedOne(query) // the connection's statement cache, as Query uses
		if err != nil {
			return err
		}
		vals := make([]driver.NamedValue, len(args))
		for i, a := range args {
			nv := driver.NamedValue{Ordinal: i + 1, Value: a}
			if n, ok := a.(sql.NamedArg); ok {
				nv.Name, nv.Value = n.Name, n.Value
			}
			if err := c.CheckNamedValue(&nv); err != nil {
				return err
			}
			vals[i] = nv
		}
		return fn(c, &stmt{c: c, st: st}, vals)
	})
}

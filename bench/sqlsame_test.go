package bench

import (
	"database/sql"
	"fmt"
	"hash/crc64"
	"slices"
	"strings"
	"testing"
)

// sqlSamePointRows is the point table of TestSameSQL (the join tables have their full size).
const sqlSamePointRows = 5_000

// sqlDigest is what a workload's queries returned: how many rows and a checksum of their text.
type sqlDigest struct {
	rows int
	sum  uint64
}

func (d *sqlDigest) add(cols ...any) {
	d.rows++
	d.sum = crc64.Update(d.sum, crcTable, fmt.Appendf(nil, "%T %v|", cols, cols))
}

// sqlSameResults is what one engine returned for the SQL workloads' statements.
type sqlSameResults struct {
	point, join, insert sqlDigest
	joinPlan            []string
}

// TestSameSQL runs the statements of the SQL workloads on every SQL engine and checks that they
// return the same rows: point SELECTs of every row (and of missing ones), the join from 50
// starting customers, and autocommit INSERTs read back. It also checks that every engine plans
// the join as searches (no loop of the join scans a table).
func TestSameSQL(t *testing.T) {
	var want sqlSameResults
	for i, name := range SQLEngines {
		t.Run(name, func(t *testing.T) {
			got := sqlSameWork(t, openSQLEngine(t, name))
			for _, detail := range got.joinPlan {
				if !strings.HasPrefix(detail, "SEARCH ") {
					t.Errorf("join plan %q: a loop that is not a SEARCH", got.joinPlan)
				}
			}
			t.Logf("%s: join plan %q", name, got.joinPlan)
			if i == 0 {
				want = got
				if got.point.rows != sqlSamePointRows || got.join.rows != 50*joinCustomers*ordersPerCustomer {
					t.Fatalf("%s: %d point rows, %d join rows", name, got.point.rows, got.join.rows)
				}
				return
			}
			if got.point != want.point || got.join != want.join || got.insert != want.insert {
				t.Errorf("%s: point %+v, join %+v, insert %+v; %s: %+v, %+v, %+v", name,
					got.point, got.join, got.insert, SQLEngines[0], want.point, want.join, want.insert)
			}
		})
	}
}

func sqlSameWork(t *testing.T, db *sql.DB) sqlSameResults {
	var r sqlSameResults
	loadPointTable(t, db, sqlSamePointRows)
	loadJoinTables(t, db)
	sqlExec(t, db, sqlLogSchema)

	point := prepare(t, db, sqlPointSelect)
	var a int64
	var b string
	for id := -1; id <= sqlSamePointRows+2; id++ {
		err := point.QueryRow(id).Scan(&a, &b)
		switch {
		case err == sql.ErrNoRows && (id < 1 || id > sqlSamePointRows):
		case err != nil:
			t.Fatalf("point SELECT of %d: %v", id, err)
		default:
			if wa, wb := pointRow(id); a != wa || b != wb {
				t.Fatalf("row %d: (%d, %q), want (%d, %q)", id, a, b, wa, wb)
			}
			r.point.add(id, a, b)
		}
	}

	join := prepare(t, db, sqlJoin)
	for i := range uint64(50) {
		first := int(mix(i)%(joinCustomerCount-joinCustomers+1)) + 1
		rows, err := join.Query(first, first+joinCustomers-1)
		if err != nil {
			t.Fatal(err)
		}
		type joined struct {
			name      string
			id, amout int64
		}
		var got []joined
		for rows.Next() {
			var j joined
			if err := rows.Scan(&j.name, &j.id, &j.amout); err != nil {
				t.Fatal(err)
			}
			if c := orderCustomer(int(j.id)); j.name != fmt.Sprintf("customer %05d", c) || c < first || c >= first+joinCustomers {
				t.Fatalf("join from %d: order %d of customer %d joined to %q", first, j.id, c, j.name)
			}
			got = append(got, j)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(got, func(x, y joined) int { return int(x.id - y.id) }) // order is unspecified
		for _, j := range got {
			r.join.add(j.name, j.id, j.amout)
		}
	}
	r.joinPlan = queryPlan(t, db, sqlJoin, 1, joinCustomers)

	insert := prepare(t, db, sqlLogInsert)
	for i := range int64(100) {
		res, err := insert.Exec(i*i, fmt.Sprintf("entry %d", i))
		if err != nil {
			t.Fatal(err)
		}
		if id, err := res.LastInsertId(); err != nil || id != i+1 {
			t.Fatalf("insert %d: LastInsertId %d, %v", i, id, err)
		}
	}
	rows, err := db.Query(`SELECT id, k, v FROM log ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, k int64
		var v string
		if err := rows.Scan(&id, &k, &v); err != nil {
			t.Fatal(err)
		}
		r.insert.add(id, k, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

// queryPlan returns the detail column of EXPLAIN QUERY PLAN query.
func queryPlan(t *testing.T, db *sql.DB, query string, args ...any) []string {
	rows, err := db.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var details []string
	for rows.Next() {
		var id, parent, notUsed int64
		var detail string
		if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
			t.Fatal(err)
		}
		details = append(details, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return details
}

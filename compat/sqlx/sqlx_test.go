package sqlx

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	_ "github.com/cairndb/cairn/cairnsql"
)

// person is a row of the people table, mapped by sqlx through its db tags.
type person struct {
	ID    int64          `db:"id"`
	Name  string         `db:"name"`
	Email string         `db:"email"`
	Age   int            `db:"age"`
	Note  sql.NullString `db:"note"`
}

const schema = `CREATE TABLE people (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL,
	email TEXT NOT NULL UNIQUE,
	age INTEGER NOT NULL,
	note TEXT
)`

// open returns a cairn database through sqlx, in a file of the test's directory. Nothing tells
// sqlx about the driver name "cairn": for a name it does not know it keeps ? placeholders, as
// for "sqlite3".
func open(t *testing.T) *sqlx.DB {
	t.Helper()
	db, err := sqlx.Open("cairn", filepath.Join(t.TempDir(), "people.db"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	db.MustExec(schema)
	return db
}

func TestStructsInAndOut(t *testing.T) {
	db := open(t)
	res, err := db.NamedExec(`INSERT INTO people (name, email, age, note) VALUES (:name, :email, :age, :note)`,
		[]person{
			{Name: "Ada", Email: "ada@example.com", Age: 36, Note: sql.NullString{String: "first", Valid: true}},
			{Name: "Grace", Email: "grace@example.com", Age: 45},
			{Name: "Linus", Email: "linus@example.com", Age: 21},
		})
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.EqualValues(t, 3, n)

	var people []person
	require.NoError(t, db.Select(&people, `SELECT * FROM people WHERE age > ? ORDER BY age`, 30))
	require.Equal(t, []person{
		{ID: 1, Name: "Ada", Email: "ada@example.com", Age: 36, Note: sql.NullString{String: "first", Valid: true}},
		{ID: 2, Name: "Grace", Email: "grace@example.com", Age: 45},
	}, people)

	var p person
	require.NoError(t, db.Get(&p, `SELECT * FROM people WHERE email = ?`, "linus@example.com"))
	require.Equal(t, person{ID: 3, Name: "Linus", Email: "linus@example.com", Age: 21}, p)
	require.ErrorIs(t, db.Get(&p, `SELECT * FROM people WHERE id = ?`, 99), sql.ErrNoRows)

	var count int
	require.NoError(t, db.Get(&count, `SELECT count(*) FROM people`))
	require.Equal(t, 3, count)
}

func TestNamedQueriesAndIn(t *testing.T) {
	db := open(t)
	for i, name := range []string{"a", "b", "c", "d", "e"} {
		db.MustExec(`INSERT INTO people (name, email, age) VALUES (?, ?, ?)`, name, name+"@x", 20+i)
	}

	rows, err := db.NamedQuery(`SELECT name FROM people WHERE age >= :min AND age <= :max ORDER BY name`,
		map[string]any{"min": 21, "max": 23})
	require.NoError(t, err)
	var names []string
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		names = append(names, name)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	require.Equal(t, []string{"b", "c", "d"}, names)

	// sqlx.In expands a slice argument into one placeholder per element.
	q, args, err := sqlx.In(`SELECT name FROM people WHERE name IN (?) AND age > ? ORDER BY age DESC`,
		[]string{"a", "c", "e", "zz"}, 20)
	require.NoError(t, err)
	names = nil
	require.NoError(t, db.Select(&names, db.Rebind(q), args...))
	require.Equal(t, []string{"e", "c"}, names)

	stmt, err := db.PrepareNamed(`SELECT * FROM people WHERE name = :name`)
	require.NoError(t, err)
	defer stmt.Close()
	for _, name := range []string{"a", "d"} {
		var p person
		require.NoError(t, stmt.Get(&p, map[string]any{"name": name}))
		require.Equal(t, name+"@x", p.Email)
	}
}

func TestTransactions(t *testing.T) {
	db := open(t)
	tx := db.MustBegin()
	tx.MustExec(`INSERT INTO people (name, email, age) VALUES (?, ?, ?)`, "kept", "k@x", 1)
	require.NoError(t, tx.Commit())

	tx = db.MustBegin()
	tx.MustExec(`INSERT INTO people (name, email, age) VALUES (?, ?, ?)`, "dropped", "d@x", 2)
	_, err := tx.Exec(`INSERT INTO people (name, email, age) VALUES (?, ?, ?)`, "dup", "k@x", 3)
	require.EqualError(t, err, "UNIQUE constraint failed: people.email")
	require.NoError(t, tx.Rollback())

	var names []string
	require.NoError(t, db.Select(&names, `SELECT name FROM people ORDER BY id`))
	require.Equal(t, []string{"kept"}, names)

	// Columns sqlx cannot map are an error, as on any driver.
	var wrong []struct {
		Other string `db:"other"`
	}
	require.ErrorContains(t, db.Select(&wrong, `SELECT name FROM people`), "missing destination name name")
}

package parse

import (
	"testing"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/stretchr/testify/require"
)

func TestPragmaForms(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want ast.Pragma
	}{
		{"PRAGMA user_version", ast.Pragma{Name: "user_version"}},
		{"PRAGMA main.user_version = -3", ast.Pragma{Schema: "main", Name: "user_version", Value: "-3", HasValue: true}},
		{"PRAGMA table_info('it''s')", ast.Pragma{Name: "table_info", Value: "it's", HasValue: true, Call: true}},
		{`PRAGMA table_info("t")`, ast.Pragma{Name: "table_info", Value: "t", HasValue: true, Call: true}},
		{"PRAGMA table_info([t])", ast.Pragma{Name: "table_info", Value: "t", HasValue: true, Call: true}},
		{"PRAGMA journal_mode=WAL", ast.Pragma{Name: "journal_mode", Value: "WAL", HasValue: true}},
		{"PRAGMA temp.x", ast.Pragma{Schema: "temp", Name: "x"}},
	} {
		stmts, err := Parse(tc.sql)
		require.NoError(t, err, tc.sql)
		p, ok := stmts[0].Stmt.(*ast.Pragma)
		require.True(t, ok, tc.sql)
		p.At = 0
		require.Equal(t, tc.want, *p, tc.sql)
	}
}

func TestVacuumAndAnalyzeForms(t *testing.T) {
	stmts, err := Parse("VACUUM; VACUUM main INTO 'f.db'; ANALYZE; ANALYZE main; ANALYZE t; ANALYZE main.ix")
	require.NoError(t, err)
	require.Nil(t, stmts[0].Stmt.(*ast.Vacuum).Into)
	v := stmts[1].Stmt.(*ast.Vacuum)
	require.Equal(t, "main", v.Schema)
	require.NotNil(t, v.Into)
	var names []string
	for _, st := range stmts[2:] {
		names = append(names, st.Stmt.(*ast.Analyze).Name)
	}
	require.Equal(t, []string{"", "", "t", "ix"}, names)
	_, err = Parse("ANALYZE other.t")
	require.ErrorIs(t, err, ErrUnsupported)
	stmts, err = Parse("SELECT * FROM temp.sqlite_master")
	require.NoError(t, err)
	require.Equal(t, "sqlite_temp_master", stmts[0].Stmt.(*ast.Select).Cores[0].From[0].Table)
}

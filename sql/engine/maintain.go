package engine

// VACUUM and ANALYZE. VACUUM runs cairn's online compaction (cairn.DB.Compact), which moves
// pages toward the start of the file and truncates it; VACUUM INTO writes a backup of the newest
// committed version to a new file (cairn.DB.BackupFile). ANALYZE stores no statistics: the
// planner reads each table's size from its bucket when it plans (choose.go), so ANALYZE makes
// every prepared statement plan again, with the sizes of now, by bumping the schema cookie.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cairndb/cairn/sql/ast"
	"github.com/cairndb/cairn/sql/value"
)

// vacuum runs VACUUM [schema] [INTO file].
func (s *Session) vacuum(ctx context.Context, v *ast.Vacuum, args []value.Value) error {
	switch strings.ToLower(v.Schema) {
	case "", "main", "temp":
	default:
		return fmt.Errorf("unknown database %s", v.Schema)
	}
	if s.inTx || s.attached {
		return errors.New("cannot VACUUM from within a transaction")
	}
	if strings.EqualFold(v.Schema, "temp") {
		return nil // TEMP views live in memory: nothing to compact
	}
	if v.Into == nil {
		if err := s.eng.writeAllowed(); err != nil {
			return err
		}
		_, err := s.eng.database().Compact(ctx, nil)
		return err
	}
	var file value.Value
	err := s.reading(ctx, func(cx *execCtx) error {
		b := &binder{pc: &planCtx{schema: cx.schema, sess: s}, sc: &scope{}, noAgg: "VACUUM INTO"}
		e, _, err := b.bind(v.Into)
		if err != nil {
			return err
		}
		file, err = e.eval(&env{params: args, run: &runState{cx: cx, params: args, subqCache: map[*subquery]*subqResult{}}})
		return err
	})
	if err != nil {
		return err
	}
	if file.Kind() != value.Text {
		return errors.New("non-text filename")
	}
	path := string(file.Bytes())
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return errors.New("output file already exists")
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return s.eng.database().BackupFile(path)
}

// analyze runs ANALYZE [name]: name must be a table or index (or none); every plan is made
// again afterwards.
func (x *execCtx) analyze(st *ast.Analyze) error {
	if st.Name != "" && x.schema.table(st.Name) == nil && x.schema.index(st.Name) == nil {
		return fmt.Errorf("no such table: %s", st.Name)
	}
	if len(x.schema.tables) == 0 {
		return nil
	}
	b, err := x.schemaStore()
	if err != nil {
		return err
	}
	return x.changed(b, x.schema.clone())
}

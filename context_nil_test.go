package cairn

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNilContextIsBackground: every method of the public API that takes a context treats nil as
// context.Background() rather than panicking.
func TestNilContextIsBackground(t *testing.T) {
	db, _ := newTestDB(t, nil)
	for i := range 200 {
		require.NoError(t, db.Update(func(tx *Tx) error { return tx.Put([]byte{byte(i)}, make([]byte, 500)) }))
	}
	calls := map[string]func() error{
		"BeginContext": func() error {
			tx, err := db.BeginContext(nil, true)
			if err != nil {
				return err
			}
			return tx.Rollback()
		},
		"Checkpoint": func() error { return db.Checkpoint(nil) },
		"Compact": func() error {
			_, err := db.Compact(nil, nil)
			return err
		},
	}
	for name, call := range calls {
		require.NotPanics(t, func() { require.NoError(t, call(), name) }, name)
	}
	// Every method taking a context is in calls.
	ctxType := reflect.TypeFor[context.Context]()
	var withCtx []string
	dbType := reflect.TypeFor[*DB]()
	for j := range dbType.NumMethod() {
		m := dbType.Method(j)
		for i := range m.Type.NumIn() {
			if m.Type.In(i) == ctxType {
				withCtx = append(withCtx, m.Name)
			}
		}
	}
	var tested []string
	for name := range calls {
		tested = append(tested, name)
	}
	slices.Sort(tested)
	require.Equal(t, tested, withCtx)
	require.Equal(t, 200, func() int {
		n := 0
		require.NoError(t, db.View(func(tx *Tx) error {
			for range tx.Range(nil, nil) {
				n++
			}
			return nil
		}))
		return n
	}())
}

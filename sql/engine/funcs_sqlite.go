package engine

import "github.com/cairndb/cairn/sql/value"

// Functions about SQLite itself that programs and tools call: the subtype of a value, and the
// compile options (cairn is not compiled from SQLite's source: it has none).

func init() {
	for _, f := range []*scalarFunc{
		{name: "subtype", minArgs: 1, maxArgs: 1, fn: fnSubtype},
		{name: "sqlite_compileoption_used", minArgs: 1, maxArgs: 1, fn: fnCompileOptionUsed},
		{name: "sqlite_compileoption_get", minArgs: 1, maxArgs: 1, fn: fnCompileOptionGet},
	} {
		scalarFuncs[f.name] = f
	}
}

// fnSubtype is subtype(x): 74 ('J') for a value a JSON function returned as JSON, else 0.
func fnSubtype(a []value.Value, _ value.Collation) (value.Value, error) {
	return value.Int(int64(a[0].Subtype())), nil
}

// fnCompileOptionUsed is sqlite_compileoption_used(name): 0 (NULL for NULL), as no option is set.
func fnCompileOptionUsed(a []value.Value, _ value.Collation) (value.Value, error) {
	if a[0].IsNull() {
		return a[0], nil
	}
	return value.Int(0), nil
}

// fnCompileOptionGet is sqlite_compileoption_get(n): NULL, as there is no n-th option.
func fnCompileOptionGet([]value.Value, value.Collation) (value.Value, error) {
	return value.Value{}, nil
}

//go:build race

package cairnsql_test

// raceEnabled is set in a -race build, whose instrumentation changes allocation counts.
const raceEnabled = true

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/perf/benchunit"
)

// unitOrder lists the units the tables show first, in this order; others follow sorted.
var unitOrder = []string{
	"sec/op", "p50-sec", "p95-sec", "p99-sec", "p99.9-sec", "commits/s", "commits/sync",
	"ops/s", "keys/s", "bytes/key", "B/op", "allocs/op",
}

// baseEngine is the engine the tables' ratios divide by.
const baseEngine = "cairn"

// writeTables writes one Markdown table per unit: a row per series, a column per engine, each
// cell the median of the runs with benchstat's 95% confidence interval and, for engines other
// than cairn, the ratio of their median to cairn's. source is the tables' caption.
func writeTables(s *store, source string, w io.Writer) {
	fmt.Fprintf(w, "Source: %s.\n\nEach cell: the median of the runs ± benchstat's 95%% confidence interval; "+
		"(N×) is the engine's median divided by %s's. Empty: the engine has no such row.\n", source, baseEngine)
	for _, unit := range tableUnits(s) {
		rows := tableRows(s, unit)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### %s\n\n| workload | %s |\n|---|%s\n", unit,
			strings.Join(s.engines, " | "), strings.Repeat("---:|", len(s.engines)))
		for _, sr := range rows {
			cells := make([]string, len(s.engines))
			for i, e := range s.engines {
				cells[i] = cell(s, sr, e, unit)
			}
			fmt.Fprintf(w, "| %s | %s |\n", sr.name(), strings.Join(cells, " | "))
		}
	}
}

// tableUnits returns every unit of s: those of unitOrder first, then the rest sorted.
func tableUnits(s *store) []string {
	seen := map[string]bool{}
	for k := range s.runs {
		seen[k.unit] = true
	}
	var units, rest []string
	for _, u := range unitOrder {
		if seen[u] {
			units = append(units, u)
			delete(seen, u)
		}
	}
	for u := range seen {
		rest = append(rest, u)
	}
	slices.Sort(rest)
	return append(units, rest...)
}

// tableRows returns the series that have runs in unit, in the order of the input.
func tableRows(s *store, unit string) []series {
	var rows []series
	for _, base := range s.bases {
		for _, p := range s.params[base] {
			sr := series{base, p}
			for _, e := range s.engines {
				if len(s.runs[sampleKey{sr, e, unit}]) > 0 {
					rows = append(rows, sr)
					break
				}
			}
		}
	}
	return rows
}

// cell formats the median of sr on engine in unit, its interval and its ratio to cairn's.
func cell(s *store, sr series, engine, unit string) string {
	sum, n, _ := s.summary(sr, engine, unit)
	if n == 0 {
		return ""
	}
	text := formatValue(sum.Center, unit) + " ±" + strings.TrimPrefix(sum.PctRangeString(), "± ")
	if engine == baseEngine {
		return text
	}
	if base, bn, _ := s.summary(sr, baseEngine, unit); bn > 0 && base.Center != 0 {
		text += fmt.Sprintf(" (%s×)", ratioString(sum.Center/base.Center))
	}
	return text
}

// formatValue scales v as benchstat does and spells time units as seconds ("305 µs").
func formatValue(v float64, unit string) string {
	scaled := benchunit.Scale(v, benchunit.ClassOf(unit))
	if strings.HasSuffix(unit, "sec") || strings.HasPrefix(unit, "sec/") {
		return scaled + "s"
	}
	return scaled
}

// ratioString prints a ratio as a whole number from 10 up, with two decimals from 1 up, and
// with two significant digits below 1 (0.048).
func ratioString(r float64) string {
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f", r)
	case r >= 1:
		return fmt.Sprintf("%.2f", r)
	}
	return fmt.Sprintf("%.2g", r)
}

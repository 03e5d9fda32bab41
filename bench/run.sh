#!/usr/bin/env bash
# Runs the comparison suite and prints benchstat tables with one column per engine.
#
#   bench/run.sh            full run: -count 6, full data sets
#   bench/run.sh -short     quick run: -count 1 unless -count is given, -short data sets
#   bench/run.sh -count N -bench REGEXP -benchtime T   (any of these may be combined)
#   bench/run.sh -note TEXT   adds a line to the charts' captions (say, what else ran)
#
# Raw output goes to bench/results/<date>-<host>.txt (-short: <date>-<host>-short.txt),
# benchstat's tables to the same name with .benchstat.txt, Markdown tables (cmd/benchplot) with
# .md, the charts (cmd/benchplot, SVG) to a directory of the same name without .txt; an existing
# file is not overwritten (a numbered
# suffix is added). Databases go under the temporary
# directory, or $CAIRN_BENCH_DIR, which must be on a disk (not tmpfs).
set -euo pipefail
cd "$(dirname "$0")"

count="" short="" bench="." benchtime="1s" suffix="" note=""
while [ $# -gt 0 ]; do
  case "$1" in
    -short) short="-short" suffix="-short" ;;
    -count) count="$2"; shift ;;
    -bench) bench="$2"; shift ;;
    -benchtime) benchtime="$2"; shift ;;
    -note) note="$2"; shift ;;
    *) echo "usage: $0 [-short] [-count N] [-bench REGEXP] [-benchtime T] [-note TEXT]" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$count" ]; then
  if [ -n "$short" ]; then count=1; else count=6; fi
fi

mkdir -p results
out="results/$(date +%Y-%m-%d)-$(hostname -s)${suffix}.txt"
n=1
while [ -e "$out" ]; do
  n=$((n + 1)); out="results/$(date +%Y-%m-%d)-$(hostname -s)${suffix}-$n.txt"
done

# Configuration lines: benchstat keeps "key: value" lines and shows them above its tables.
{
  echo "cairn-commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- .. 2>/dev/null || echo -dirty)"
  echo "go: $(go env GOVERSION)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu-model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "nproc: $(nproc)"
  echo "bench-dir-fs: $(df -PT "${CAIRN_BENCH_DIR:-${TMPDIR:-/tmp}}" | awk 'NR==2 {print $2}')"
  echo "loadavg-start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out"

cmd=(go test -run '^$' -bench "$bench" -benchtime "$benchtime" -count "$count" -timeout 0 $short .)
echo "running: ${cmd[*]}" >&2
start=$(date +%s)
"${cmd[@]}" | tee -a "$out"
echo "loadavg-end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
echo "suite took $(( $(date +%s) - start )) s; raw output: bench/$out" >&2

go run ./cmd/benchplot -o "${out%.txt}" -tables "${out%.txt}.md" -note "$note" "$out" >&2 ||
  echo "run.sh: no charts (see above)" >&2

go run golang.org/x/perf/cmd/benchstat@latest -col /engine "$out" | tee "${out%.txt}.benchstat.txt"

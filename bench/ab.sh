#!/usr/bin/env bash
# Alternates single benchmark runs of two test binaries, so that the machine's drift (large on
# shared VMs) falls on both alike, and writes OUT-old.txt and OUT-new.txt for benchstat.
#
#   bench/ab.sh OLD.test NEW.test REGEXP ROUNDS OUT [extra test flags]
#
# Build the binaries with `go test -c -o X.test .` in a worktree of each commit (the root
# package, or bench/ for the suite's rows), then compare with
#   go run golang.org/x/perf/cmd/benchstat@latest OUT-old.txt OUT-new.txt
set -euo pipefail
if [ $# -lt 5 ]; then
  echo "usage: $0 OLD.test NEW.test REGEXP ROUNDS OUT [extra test flags]" >&2
  exit 2
fi
old=$1 new=$2 re=$3 rounds=$4 out=$5
shift 5
: > "$out-old.txt"
: > "$out-new.txt"
for _ in $(seq "$rounds"); do
  "$old" -test.run '^$' -test.bench "$re" -test.count 1 -test.benchmem "$@" >> "$out-old.txt" 2>&1
  "$new" -test.run '^$' -test.bench "$re" -test.count 1 -test.benchmem "$@" >> "$out-new.txt" 2>&1
done

#!/usr/bin/env bash
# Compares two builds of effectaudit on one ledger. The machines we measure
# on are noisy, so the builds take turns, A then B in odd pairs and B then A
# in even ones, and the script prints the median wall time, CPU time (user +
# system) and peak RSS of each, B's median over A's, and in how many of the
# pairs B was the faster, with the sign test's p: the chance of a count of
# wins that lopsided between two builds of the same speed. It needs GNU time
# as /usr/bin/time.
# Usage: bench/ab.sh OLD_BINARY NEW_BINARY [RUNS] [LEDGER]
#   RUNS defaults to 11; LEDGER to bench/out/ledger-1m.ndjson (bench/run.sh
#   makes it). FORMAT=table (or any report format) times that format
#   instead of json. PAUSE=S sleeps S seconds before each run, so that
#   every run starts on memory the machine has not touched lately (see
#   bench/run.sh).
# For example, against the commit before yours:
#   git worktree add /tmp/before HEAD~ && (cd /tmp/before && go build -o /tmp/a .)
#   go build -o /tmp/b . && bench/ab.sh /tmp/a /tmp/b
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
A=$1
B=$2
RUNS=${3:-11}
[ "$RUNS" -ge 1 ] 2> /dev/null || { echo "ab.sh: RUNS must be a whole number, 1 or more" >&2; exit 2; }
LEDGER=${4:-$(dirname "$0")/out/ledger-1m.ndjson}
FORMAT=${FORMAT:-json}
PAUSE=${PAUSE:-0}
[ -f "$LEDGER" ] || { echo "ab.sh: no ledger $LEDGER (bench/run.sh 1m makes it)" >&2; exit 2; }

runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT

# once BINARY NAME: one audit, appending "wall cpu rss_kb" to $runs/NAME.
once() {
  sleep "$PAUSE"
  /usr/bin/time -f '%e %U %S %M' -o "$runs/time" \
    "$1" audit "$LEDGER" --format "$FORMAT" --fail-on none --quiet > /dev/null
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$runs/time" >> "$runs/$2"
}

for i in $(seq "$RUNS"); do
  if (( i % 2 )); then
    once "$A" a
    once "$B" b
  else
    once "$B" b
    once "$A" a
  fi
done

# median FILE COLUMN
median() { awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

printf '%-4s %9s %9s %11s\n' build 'wall s' 'cpu s' 'peak MiB'
for x in a b; do
  printf '%-4s %9s %9s %11d\n' "$(echo $x | tr ab AB)" "$(median "$runs/$x" 1)" "$(median "$runs/$x" 2)" \
    $(( $(median "$runs/$x" 3) / 1024 ))
done
wins=$(paste -d' ' "$runs/a" "$runs/b" | awk '$4 < $1 {n++} END {print n + 0}')
awk -v aw="$(median "$runs/a" 1)" -v bw="$(median "$runs/b" 1)" \
  -v ac="$(median "$runs/a" 2)" -v bc="$(median "$runs/b" 2)" -v wins="$wins" -v runs="$RUNS" \
  'BEGIN {
    if (aw > 0 && ac > 0) printf "B/A: wall %.3f, cpu %.3f; ", bw / aw, bc / ac
    else printf "B/A: A took no measurable time; "
    # The sign test: how likely a count of wins this far from half is
    # when the two builds are as fast as each other, each pair a coin toss.
    k = (wins < runs - wins) ? wins : runs - wins
    tail = 0
    for (i = 0; i <= k; i++) tail += choose(runs, i) / 2 ^ runs
    printf "B faster in %d of %d pairs (sign test p = %.2f)\n", wins, runs, (2 * tail > 1) ? 1 : 2 * tail
  }
  function choose(n, r,   c, i) { c = 1; for (i = 1; i <= r; i++) c = c * (n - r + i) / i; return c }'

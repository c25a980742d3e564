#!/usr/bin/env bash
# Measures effectaudit against a bare line scan (and jq, if installed) on
# generated ledgers of 1M and 10M records, with /usr/bin/time -v, and prints
# MB/s and peak RSS with ratios. Runs each command RUNS times (default 3) and
# reports the median. Usage: bench/run.sh [SIZES...]  (default: 1m 10m)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
OUT=bench/out
mkdir -p "$OUT"
go build -o "$OUT/effectaudit" .
go build -o "$OUT/linescan" ./bench/linescan

# ops per size: about 2.92 records per operation.
declare -A OPS=([1m]=342000 [10m]=3420000)
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1m 10m)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure NAME CMD...: runs CMD RUNS times; prints "wall_seconds peak_kb" medians.
measure() {
  local walls=() rss=()
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -v -o "$OUT/time.txt" "$@" > /dev/null
    walls+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {split($2,t,":"); s=0; for(i=1;i<=length(t);i++) s=s*60+t[i]; print s}' "$OUT/time.txt")")
    rss+=("$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time.txt")")
  done
  echo "$(printf '%s\n' "${walls[@]}" | median) $(printf '%s\n' "${rss[@]}" | median)"
}

printf '%-6s %-12s %10s %10s %10s %12s\n' size tool seconds MB/s RSS_MB 'vs-linescan'
for size in "${sizes[@]}"; do
  ledger="$OUT/ledger-$size.ndjson"
  [ -f "$ledger" ] || "$OUT/effectaudit" generate --ops "${OPS[$size]}" --seed 1 -o "$ledger"
  bytes=$(stat -c %s "$ledger")
  read -r scan_s scan_kb < <(measure "$OUT/linescan" "$ledger")
  read -r ea_s ea_kb < <(measure "$OUT/effectaudit" audit "$ledger" --format json --fail-on none --quiet)
  row() { printf '%-6s %-12s %10.2f %10.0f %10.0f %12s\n' "$size" "$1" "$2" "$(echo "$bytes/$2/1000000" | bc -l)" "$(echo "$3/1024" | bc -l)" "$4"; }
  row linescan "$scan_s" "$scan_kb" "1"
  row effectaudit "$ea_s" "$ea_kb" "1/$(echo "$ea_s/$scan_s" | bc -l | xargs printf '%.1f')"
  if command -v jq > /dev/null && [ "$size" = 1m ]; then
    read -r jq_s jq_kb < <(RUNS=1 measure jq -c 'select(.type=="effect")' "$ledger")
    row jq "$jq_s" "$jq_kb" "1/$(echo "$jq_s/$scan_s" | bc -l | xargs printf '%.1f')"
  fi
done

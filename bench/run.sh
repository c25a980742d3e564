#!/usr/bin/env bash
# Measures effectaudit against a bare line scan (and jq, if installed) on
# generated ledgers of 1M and 10M records, and prints MB/s and peak RSS with
# ratios. Each command runs RUNS times (default 3) under /usr/bin/time -v, the
# tools alternating so that a noisy machine slows them alike; the table shows
# medians, and a last line the median of the rounds' own ratios. The line
# scan is bench/linescan, a bufio.Scanner reading every line; "LF count" is
# bench/linescan -count, which only counts LF bytes.
# PAUSE=S sleeps S seconds before each run, so that every run starts on
# memory the machine has not touched lately: on the virtual machines we
# measure on, memory a process freed a second or more ago costs about 2 ms
# a megabyte to touch again, and memory freed just before next to nothing,
# so back-to-back runs are faster than a CI job's first run, and vary.
# Usage: bench/run.sh [SIZES...]  (default: 1m 10m)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
PAUSE=${PAUSE:-0}
OUT=bench/out
mkdir -p "$OUT"
go build -o "$OUT/effectaudit" .
go build -o "$OUT/linescan" ./bench/linescan

# ops per size: about 2.92 records per operation.
declare -A OPS=([1m]=342000 [10m]=3420000)
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1m 10m)

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# once NAME CMD...: runs CMD once, appending its wall seconds (to the
# nanosecond) and peak RSS in KB to $OUT/NAME.runs.
once() {
  local name=$1
  shift
  local start end
  sleep "$PAUSE"
  start=$(date +%s.%N)
  /usr/bin/time -v -o "$OUT/time.txt" "$@" > /dev/null
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc -l) $(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time.txt")" >> "$OUT/$name.runs"
}

# statof NAME COLUMN: the median of a column of $OUT/NAME.runs.
statof() { awk -v c="$2" '{print $c}' "$OUT/$1.runs" | median; }

# ratio SECONDS SCAN_SECONDS: the throughput against the line scan's, as
# 1/N when slower, N× when faster and 1 when the same.
ratio() {
  if (( $(echo "$1 == $2" | bc -l) )); then
    printf '1'
  elif (( $(echo "$1 > $2" | bc -l) )); then
    printf '1/%.1f' "$(echo "$1/$2" | bc -l)"
  else
    printf '%.1f×' "$(echo "$2/$1" | bc -l)"
  fi
}

# The machine the table was measured on: the line scan's speed follows the
# kernel and how it caches files (FileHugePages: cached files in huge
# pages), so ratios from different machines or kernels do not compare.
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2> /dev/null | cut -d: -f2- | sed 's/^ //'), kernel $(uname -r), $(awk '/^FileHugePages/ {printf "FileHugePages %d MiB", $2/1024}' /proc/meminfo 2> /dev/null)"
printf '%-5s %-13s %9s %9s %9s %14s\n' size tool seconds MB/s RSS_MB 'vs line scan'
for size in "${sizes[@]}"; do
  ledger="$OUT/ledger-$size.ndjson"
  [ -f "$ledger" ] || "$OUT/effectaudit" generate --ops "${OPS[$size]}" --seed 1 -o "$ledger"
  bytes=$(stat -c %s "$ledger" 2>/dev/null || wc -c < "$ledger")
  tools=(linescan lfcount effectaudit)
  for t in "${tools[@]}"; do : > "$OUT/$t.runs"; done
  # Untimed, so that the first round does not read the ledger or the
  # binaries from disk.
  "$OUT/linescan" "$ledger" > /dev/null
  "$OUT/effectaudit" --help > /dev/null
  for _ in $(seq "$RUNS"); do
    once linescan "$OUT/linescan" "$ledger"
    once lfcount "$OUT/linescan" -count "$ledger"
    once effectaudit "$OUT/effectaudit" audit "$ledger" --format json --fail-on none --quiet
  done
  if command -v jq > /dev/null && [ "$size" = 1m ]; then
    : > "$OUT/jq.runs"
    once jq jq -c 'select(.type=="effect")' "$ledger"
    tools+=(jq)
  fi
  scan=$(statof linescan 1)
  for t in "${tools[@]}"; do
    s=$(statof "$t" 1)
    printf '%-5s %-13s %9.2f %9.0f %9.0f %14s\n' "$size" "$t" "$s" \
      "$(echo "$bytes/$s/1000000" | bc -l)" "$(echo "$(statof "$t" 2)/1024" | bc -l)" \
      "$(ratio "$s" "$scan")"
  done
  # The machine's speed drifts over minutes, so the ratio of each round,
  # whose two runs are seconds apart, says more than the ratio of medians.
  rounds=$(paste -d' ' <(cut -d' ' -f1 "$OUT/effectaudit.runs") <(cut -d' ' -f1 "$OUT/linescan.runs") |
    awk '{printf "%.4f\n", $1/$2}' | sort -g)
  printf '%-5s effectaudit vs line scan, round by round: median %s, from %s to %s\n' "$size" \
    "$(ratio "$(echo "$rounds" | median)" 1)" "$(ratio "$(echo "$rounds" | tail -1)" 1)" "$(ratio "$(echo "$rounds" | head -1)" 1)"
done

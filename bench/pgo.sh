#!/usr/bin/env bash
# Makes default.pgo, the CPU profile that go build and go install use to
# guide the compiler (profile-guided optimization: hot calls inlined, hot
# blocks laid out first), from runs of effectaudit on the workloads it is
# tuned for: the 1M-record ledger audited to JSON (three runs), to a table
# and to NDJSON, and an OTLP export of 90,000 lines audited to JSON. The
# profiled binary is built without the old profile, so that the new one
# does not depend on it. Run it after changing a hot path, and commit
# default.pgo with the change.
# Usage: bench/pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out
mkdir -p "$OUT/pgo"
rm -f "$OUT"/pgo/*.prof
bin=$OUT/effectaudit-nopgo
go build -pgo=off -o "$bin" .

ledger=$OUT/ledger-1m.ndjson
[ -f "$ledger" ] || "$bin" generate --ops 342000 --seed 1 -o "$ledger"
otlp=$OUT/otlp-90k.jsonl
[ -f "$otlp" ] || awk '{line[NR] = $0} END {for (i = 0; i < 30000; i++) for (j = 1; j <= NR; j++) print line[j]}' \
  otlp/testdata/four-operations.otlp.jsonl > "$otlp"

# profile NAME ARGS...: one audit, profiled into $OUT/pgo/NAME.prof.
profile() {
  local name=$1
  shift
  "$bin" audit "$@" --fail-on none --quiet --cpuprofile "$OUT/pgo/$name.prof" > /dev/null
}
for i in 1 2 3; do
  profile "json$i" "$ledger" --format json
done
profile table "$ledger"
profile ndjson "$ledger" --format ndjson
profile otlp "$otlp" --format json
go tool pprof -proto "$OUT"/pgo/*.prof > default.pgo
echo "default.pgo: $(wc -c < default.pgo) bytes from $(ls "$OUT"/pgo/*.prof | wc -l) runs"

#!/usr/bin/env bash
# B14 — `strata store export` of a 1M-object store against `sqlite3 -json` of the same table,
# in one run (SPEC §5 item 8 of issue 25: ≤ 3×, memory flat).
#
#   Benchmarks/store-export.sh [ROWS] [STRATA]
#
# ROWS defaults to 1000000; STRATA to the release build
# (.build-release/x86_64-unknown-linux-gnu/release/strata; build it with
# `swift build -c release --build-path .build-release --product strata`). The store is made
# by `strata store import` of an empty export (Core Data's schema, with the model of
# Benchmarks/StoreExport) and filled by SQL; both programs write to /dev/null. Prints the
# wall times, the ratio, and strata's peak resident memory (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
STRATA=${2:-.build-release/x86_64-unknown-linux-gnu/release/strata}
MODEL=Benchmarks/StoreExport/Rows.xcdatamodel
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
STORE="$WORK/Rows.sqlite"

echo '{"format":"strata-store-export","version":1,"entities":{}}' | "$STRATA" store import - "$STORE" --model "$MODEL" >/dev/null
sqlite3 "$STORE" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $ROWS)
INSERT INTO ZROW (Z_PK, Z_ENT, Z_OPT, ZA, ZB, ZC, ZD, ZE, ZF, ZG, ZH, ZNAME, ZWHEN)
SELECT i, 1, 1, i * 3, i * 7, i % 100000, i % 30000, i * 0.5, i / 3.0, 1.0 / i, i % 2, 'row ' || i, 700000000.25 + i FROM n;
UPDATE Z_PRIMARYKEY SET Z_MAX = $ROWS WHERE Z_NAME = 'Row';
PRAGMA wal_checkpoint(TRUNCATE);
SQL

now() { date +%s.%N; }
t0=$(now); sqlite3 -json "$STORE" 'SELECT * FROM ZROW' >/dev/null; t1=$(now)
/usr/bin/time -f '%M' -o "$WORK/rss" "$STRATA" store export "$STORE" >/dev/null; t2=$(now)
sql=$(echo "$t1 - $t0" | bc -l); tool=$(echo "$t2 - $t1" | bc -l)
printf 'B14  export %d objects  sqlite3 -json %.3f s  strata store export %.3f s  ratio %.2fx  peak RSS %d MB\n' \
    "$ROWS" "$sql" "$tool" "$(echo "$tool / $sql" | bc -l)" "$(( $(cat "$WORK/rss") / 1024 ))"

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
# Benchmarks/StoreExport) and filled by SQL; both programs write to /dev/null. Prints wall
# and CPU times, their ratios, and peak resident memory (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
STRATA=${2:-.build-release/x86_64-unknown-linux-gnu/release/strata}
MODEL=Benchmarks/StoreExport/Rows.xcdatamodel
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
STORE="$WORK/Rows.sqlite"

echo '{"format":"strata-store-export","version":1,"entities":{}}' | "$STRATA" store import - "$STORE" --model "$MODEL" >/dev/null
sqlite3 "$STORE" >/dev/null <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $ROWS)
INSERT INTO ZROW (Z_PK, Z_ENT, Z_OPT, ZA, ZB, ZC, ZD, ZE, ZF, ZG, ZH, ZNAME, ZWHEN)
SELECT i, 1, 1, i * 3, i * 7, i % 100000, i % 30000, i * 0.5, i / 3.0, 1.0 / i, i % 2, 'row ' || i, 700000000.25 + i FROM n;
UPDATE Z_PRIMARYKEY SET Z_MAX = $ROWS WHERE Z_NAME = 'Row';
PRAGMA wal_checkpoint(TRUNCATE);
SQL

# GNU time: wall seconds, CPU seconds (user + system), peak resident KB. On a busy machine the
# CPU ratio is the steadier figure.
measure() { /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$@" >/dev/null; read -r wall user sys rss <"$WORK/time"; }
measure sqlite3 -json "$STORE" 'SELECT * FROM ZROW'
sql_wall=$wall; sql_cpu=$(echo "$user + $sys" | bc -l); sql_rss=$rss
measure "$STRATA" store export "$STORE"
tool_wall=$wall; tool_cpu=$(echo "$user + $sys" | bc -l); tool_rss=$rss
printf 'B14  export %d objects  sqlite3 -json: %.2f s wall, %.2f s CPU, %d MB  strata store export: %.2f s wall, %.2f s CPU, %d MB\n' \
    "$ROWS" "$sql_wall" "$sql_cpu" "$((sql_rss / 1024))" "$tool_wall" "$tool_cpu" "$((tool_rss / 1024))"
printf 'B14  ratio (goal <= 3x): %.2fx wall, %.2fx CPU\n' \
    "$(echo "$tool_wall / $sql_wall" | bc -l)" "$(echo "$tool_cpu / $sql_cpu" | bc -l)"

#!/usr/bin/env bash
# The cost of an unset SolveOptions::trace: bench/trace_bench.cpp built twice, against the library
# before the trace (BEFORE_BUILD: a build folder of commit 5ed708f) and the one with it (AFTER_BUILD),
# run ROUNDS times in alternation on the same machine; prints per case the median over rounds of
# each binary's median time and their ratio (after / before), then the cost of tracing to a
# callback that only counts.
# Usage: bench/trace_overhead.sh BEFORE_BUILD AFTER_BUILD [ROUNDS]
set -eu
before=$1
after=$2
rounds=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build() {  # build SOURCE_ROOT BUILD_FOLDER OUTPUT
  g++ -std=c++20 -O3 -DNDEBUG -I"$1/include" -I"$here" -I/usr/include/eigen3 "$here/trace_bench.cpp" \
    "$2/src/libperp.a" -pthread -o "$3"
}
build "$here/.." "$after" "$tmp/after"
build "$(cd "$before/.." && pwd)" "$before" "$tmp/before"
for r in $(seq "$rounds"); do
  "$tmp/before" >"$tmp/before.$r"
  "$tmp/after" >"$tmp/after.$r"
done
python3 - "$tmp" "$rounds" <<'PY'
import statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
def read(name):
    rows = {}
    for r in range(1, rounds + 1):
        for line in open(f"{tmp}/{name}.{r}"):
            f = line.split()
            rows.setdefault((f[0], int(f[1])), []).append([float(x) for x in f[2:]])
    return rows
b, a = read("before"), read("after")
print("| method | n | before ms | after ms (trace unset) | after / before | traced ms | events | traced / unset |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for key in b:
    tb = statistics.median(x[0] for x in b[key])
    ta = statistics.median(x[0] for x in a[key])
    tt = statistics.median(x[1] for x in a[key])
    ev = int(a[key][0][2])
    print(f"| {key[0]} | {key[1]} | {tb:.4g} | {ta:.4g} | {ta / tb:.3f} | {tt:.4g} | {ev} | {tt / ta:.2f} |")
PY

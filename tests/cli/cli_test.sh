#!/usr/bin/env bash
# End-to-end checks of the perp CLI: exit codes, the JSON object's keys, error messages.
# Usage: cli_test.sh PERP_BINARY SICONOS_LCP_DIR
set -u
perp=$1
data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

check() {  # check NAME EXPECTED_EXIT PATTERN -- command...
  local name=$1 expected=$2 pattern=$3
  shift 4
  local out code
  out=$("$@" 2>&1)
  code=$?
  out=$(tr '\n' ' ' <<<"$out")  # patterns may span lines of pretty-printed JSON
  if [ "$code" -eq "$expected" ] && grep -qE -- "$pattern" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name (exit $code, expected $expected; pattern '$pattern')"
    echo "$out" | head -20
  fi
}

# Solved problems exit 0; the JSON has every documented key.
check "deudeu lemke json" 0 '"status": "solved"' -- "$perp" solve "$data/lcp_deudeu.dat" --method lemke --json
out=$("$perp" solve "$data/lcp_deudeu.dat" --method lemke --json)
for key in status method n iterations residual z w time_ms message history; do
  check "json key $key" 0 "\"$key\":" -- echo "$out"
done
check "json z value" 0 '1\.333333333' -- echo "$out"
check "json method name" 0 '"method": "lemke"' -- echo "$out"
check "summary output" 0 'lemke: solved' -- "$perp" solve "$data/lcp_deudeu.dat" --method lemke

# A JSON problem file, the chapter's Lemke example, and --all.
echo '{"M": [[1, 0], [2, 1]], "q": [-1, -3]}' > "$tmp/chapter.json"
check "json file" 0 '"z": \[\s*1(\.0)?,\s*1(\.0)?\s*\]' -- "$perp" solve "$tmp/chapter.json" --json --method lemke
echo '{"M": [[1, 2], [2, 1]], "q": [-1, -1]}' > "$tmp/three.json"
check "--all lists solutions" 0 '"solutions"' -- "$perp" solve "$tmp/three.json" --method enum --all --json
check "--all count" 0 'solution 3:' -- "$perp" solve "$tmp/three.json" --method enum --all

# Not solved: exit 1 with a status.
check "no solution exit 1" 1 '"status": "(no-solution-found|ray-termination|infeasible)"' -- \
  "$perp" solve "$data/lcp_Pang_isolated_sol_perturbed.dat" --json
echo '{"M": [[-1]], "q": [-1]}' > "$tmp/none.json"
check "ray reported" 1 '"ray"' -- "$perp" solve "$tmp/none.json" --method lemke --json
check "max-iter status" 1 'max-iterations' -- "$perp" solve "$data/lcp_mmc.dat" --method pgs --max-iter 2

# Invalid input: exit 2 with a message naming the problem.
check "missing file" 2 "cannot open" -- "$perp" solve "$tmp/nope.dat"
check "bad extension" 2 "extension" -- "$perp" solve "$tmp/chapter.txt"
echo '{"M": [[1, 2], [3]], "q": [1, 1]}' > "$tmp/ragged.json"
check "ragged rows" 2 "row 1" -- "$perp" solve "$tmp/ragged.json"
printf '2\n0\n2\n2\n2 2\n1 0 0 abc\n-1 -1\n' > "$tmp/bad.dat"
check "malformed dat" 2 "token 10 \('abc'\): expected a number for M\(1, 1\)" -- "$perp" solve "$tmp/bad.dat"
check "unknown method" 2 "unknown method 'newton'" -- "$perp" solve "$data/lcp_deudeu.dat" --method newton
check "bad tolerance" 2 "tolerance must be finite and > 0" -- "$perp" solve "$data/lcp_deudeu.dat" --tol -1
check "bad relaxation" 2 "relaxation must be in \(0, 2\)" -- "$perp" solve "$data/lcp_deudeu.dat" --method psor --relaxation 2.5
check "relaxation 0 refused" 2 "relaxation must be in \(0, 2\), got 0" -- "$perp" solve "$data/lcp_deudeu.dat" --method psor --relaxation 0
check "enum too large" 2 "limited to n <= 25" -- "$perp" solve "$data/lcp_tobenna.dat" --method enum
check "no subcommand" 2 "" -- "$perp"

# The demo runs every worked example as the chapter says.
check "demo" 0 "0 examples did not behave as expected" -- "$perp" demo --data "$data/.."

# classify: the matrix report, as a table or JSON, from an LCP file, a .dat, or a JSON with only M.
echo '{"M": [[1, -3], [0, 1]]}' > "$tmp/only_m.json"
check "classify table" 0 'p-matrix +yes +exact' -- "$perp" classify "$tmp/only_m.json"
check "classify table witness" 0 'positive-semidefinite +no .*witness: x = ' -- "$perp" classify "$tmp/only_m.json"
check "classify recommendation" 0 'recommendation: lemke' -- "$perp" classify "$tmp/only_m.json"
out=$("$perp" classify "$tmp/only_m.json" --json)
for key in n classes implications recommendation holds method witness reason; do
  check "classify json key $key" 0 "\"$key\":" -- echo "$out"
done
check "classify json P holds" 0 '"p-matrix": \{ *"holds": true' -- echo "$out"
check "classify dat" 0 '"n": 2' -- "$perp" classify "$data/lcp_deudeu.dat" --json
check "classify lcp json" 0 '"copositive-plus"' -- "$perp" classify "$tmp/chapter.json" --json
echo '{"M": [[1, -1, 1, 1, -1], [-1, 1, -1, 1, 1], [1, -1, 1, -1, 1], [1, 1, -1, 1, -1], [-1, 1, 1, -1, 1]]}' > "$tmp/horn.json"
check "classify undecided is null" 0 '"copositive": \{ *"holds": null' -- "$perp" classify "$tmp/horn.json" --json --max-copositive-size 4
check "classify exact copositive" 0 '"copositive": \{ *"holds": true, *"method": "exact"' -- "$perp" classify "$tmp/horn.json" --json
echo '{"M": [[1, 2]]}' > "$tmp/not_square.json"
check "classify not square" 2 "must be square" -- "$perp" classify "$tmp/not_square.json"
echo '{"M": []}' > "$tmp/empty.json"
check "classify empty" 2 "nothing to classify" -- "$perp" classify "$tmp/empty.json"
check "classify missing file" 2 "cannot open" -- "$perp" classify "$tmp/nope.json"
check "classify bad tolerance" 2 "tolerance must be in" -- "$perp" classify "$tmp/only_m.json" --tol 2

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

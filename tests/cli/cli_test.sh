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

# stopped_by_sigterm LABEL OUT SECONDS DUMP -- simulate arguments...: `perp simulate ARGS --out OUT`
# (and --dump DUMP unless DUMP is empty) in the background, SIGTERM after SECONDS; the exit status
# 128 + 15 with its message, OUT holding what it held before, no temporary folder beside it and no
# temporary file in it, and no DUMP folder made.
stopped_by_sigterm() {
  local label=$1 out=$2 seconds=$3 dump=$4
  shift 5
  local before code pid
  local dump_args=()
  [ -n "$dump" ] && dump_args=(--dump "$dump")
  before=$(cat "$out"/* | md5sum)
  "$perp" simulate "$@" --out "$out" "${dump_args[@]}" >/dev/null 2>"$out.err" &
  pid=$!
  sleep "$seconds"
  kill -TERM "$pid"
  wait "$pid"
  code=$?
  check "SIGTERM ends $label with 128 + 15" 0 '^143 stopped by signal 15' -- bash -c "echo $code \$(grep -o 'stopped by signal 15' '$out.err')"
  check "SIGTERM left the earlier results ($label)" 0 "^$before *\$" -- bash -c "cat '$out'/* | md5sum"
  check "no temporary folder left beside --out ($label)" 0 '^0 *$' -- bash -c "ls -A '$(dirname "$out")' | grep -c 'partial\|earlier'; true"
  check "no temporary file left in --out ($label)" 0 '^0 *$' -- bash -c "ls -A '$out' | grep -c 'partial'; true"
  if [ -n "$dump" ]; then
    check "no --dump folder made ($label)" 0 '^absent *$' -- bash -c "[ -e '$dump' ] && echo present || echo absent"
  fi
}

# Solved problems exit 0; the JSON has every documented key.
# fclib files (HDF5): a global problem, a local one, the rolling-friction file refused, a text file
# named .hdf5 read as what it is.
fclib="$data/../fclib"
check "fclib global" 0 'global friction contact, d = 3, 9 contacts, 162 dofs' -- "$perp" solve "$fclib/LMGC_GlobalFrictionContactProblem00046.hdf5"
check "fclib global json" 0 '"equilibrium"' -- "$perp" solve "$fclib/CubeH8.hdf5" --json
check "fclib local" 0 'friction contact, d = 3, 286 contacts' -- "$perp" solve "$fclib/Capsules-i125-1213.hdf5"
check "fclib rolling refused" 2 'rolling friction' -- "$perp" solve "$fclib/Chute-ndof-768-nc-4-3.hdf5"
check "deudeu lemke json" 0 '"status": "solved"' -- "$perp" solve "$data/lcp_deudeu.dat" --method lemke --json
out=$("$perp" solve "$data/lcp_deudeu.dat" --method lemke --json)
for key in status method n iterations residual z w time_ms message history; do
  check "json key $key" 0 "\"$key\":" -- echo "$out"
done
check "json z value" 0 '1\.333333333' -- echo "$out"
check "json method name" 0 '"method": "lemke"' -- echo "$out"
check "summary output" 0 'lemke: solved' -- "$perp" solve "$data/lcp_deudeu.dat" --method lemke

# The Newton family and the interior-point method on LCP files: same JSON, history filled.
for m in newton-fb newton-min penalized-fb smoothing interior-point; do
  check "$m solves deudeu" 0 "\"method\": \"$m\"" -- "$perp" solve "$data/lcp_deudeu.dat" --method $m --json
  check "$m history" 0 '"history": \[\s*[0-9]' -- "$perp" solve "$data/lcp_deudeu.dat" --method $m --json --tol 1e-12
done
check "interior-point not monotone" 1 'not-applicable.*not positive semidefinite' -- \
  "$perp" solve "$data/lcp_CPS_2.dat" --method interior-point --json

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

# Box LCP, MLCP and QP files: the type comes from the JSON "type" or from the .dat header, and each
# result has its own keys (issue 4). The example files' solutions are derived in docs/file-formats.md.
problems=$(cd "$(dirname "$0")/../../examples/problems" && pwd)
out=$("$perp" solve "$problems/box_lcp_friction.json" --json)
for key in status method iterations residual z w time_ms message; do
  check "box json key $key" 0 "\"$key\":" -- echo "$out"
done
check "box friction solution" 0 '"z": \[\s*2(\.0)?,\s*1(\.0)?,\s*-0\.25,\s*-1(\.0)?\s*\]' -- echo "$out"
check "box dantzig" 0 '"method": "dantzig"' -- "$perp" solve "$problems/box_lcp_friction.json" --method dantzig --json
check "box pgs" 0 'pgs: solved' -- "$perp" solve "$problems/box_lcp_friction.json" --method pgs
check "box newton-fb" 0 '"status": "solved"' -- "$perp" solve "$problems/box_lcp_friction.json" --method newton-fb --json
check "box summary" 0 'box LCP, n = 4, 2 friction couplings' -- "$perp" solve "$problems/box_lcp_friction.json"
check "box lemke refused" 2 "lemke" -- "$perp" solve "$problems/box_lcp_friction.json" --method lemke
echo '{"type": "box-lcp", "M": [[2, 1], [1, 2]], "q": [-1, 1], "lo": [0, 1], "hi": [null, 0]}' > "$tmp/box_bad.json"
check "box lo > hi" 2 'lo\[1\] = 1 > hi\[1\] = 0' -- "$perp" solve "$tmp/box_bad.json"
echo '{"type": "box-lcp", "M": [[1]], "q": [-1], "lo": [0], "hi": [null], "friction": [{"index": 0, "normal": 3, "mu": 0.5}]}' > "$tmp/box_findex.json"
check "box friction index out of range" 2 'friction\[0\]\.normal = 3 is out of range' -- "$perp" solve "$tmp/box_findex.json"
check "dantzig on an LCP file" 0 '"method": "dantzig"' -- "$perp" solve "$data/lcp_deudeu.dat" --method dantzig --json

out=$("$perp" solve "$problems/mlcp_small.json" --json)
for key in status method iterations residual equality_residual u v w time_ms message; do
  check "mlcp json key $key" 0 "\"$key\":" -- echo "$out"
done
check "mlcp solution u" 0 '"u": \[\s*1(\.0)?\s*\]' -- echo "$out"
check "mlcp solution v" 0 '"v": \[\s*2(\.0)?,\s*0(\.0)?\s*\]' -- echo "$out"
check "mlcp siconos dat by auto" 0 'MLCP, n = 3 equalities, m = 4 pairs' -- "$perp" solve "$data/../mlcp/diodeBridge_mlcp.dat"
check "mlcp siconos dat json" 0 '"u": \[\s*0\.98518518' -- "$perp" solve "$data/../mlcp/diodeBridge_mlcp.dat" --json
check "mlcp schur on singular A" 1 'not-applicable' -- "$perp" solve "$data/../mlcp/diodeBridge_mlcp.dat" --method schur
check "mlcp enum" 0 '"method": "enum"' -- "$perp" solve "$data/../mlcp/RCD_mlcp.dat" --method enum --json
check "schur needs an mlcp" 2 "schur" -- "$perp" solve "$data/lcp_deudeu.dat" --method schur
check "rectangular mlcp refused" 2 'M has 3 rows but n \+ m = 2' -- "$perp" solve "$data/../mlcp/Rectangular_mlcp.dat"

out=$("$perp" solve "$problems/qp_small.json" --json)
for key in status method iterations residual x mu nu objective time_ms message; do
  check "qp json key $key" 0 "\"$key\":" -- echo "$out"
done
check "qp solution x" 0 '"x": \[\s*2\.5,\s*1\.5,\s*0(\.0)?\s*\]' -- echo "$out"
check "qp objective" 0 '"objective": -2\.25' -- echo "$out"
check "qp interior-point" 0 'objective = -2.25' -- "$perp" solve "$problems/qp_small.json" --method interior-point
echo '{"type": "qp", "Q": [[1]], "c": [0], "A": [[-1]], "b": [1]}' > "$tmp/qp_infeasible.json"
check "qp infeasible" 1 'infeasible' -- "$perp" solve "$tmp/qp_infeasible.json" --json
echo '{"type": "qp", "Q": [[1, 0], [0, -1]], "c": [0, 0]}' > "$tmp/qp_nonconvex.json"
check "qp not PSD" 2 'not positive semidefinite' -- "$perp" solve "$tmp/qp_nonconvex.json"
echo '{"type": "qp2", "Q": [[1]], "c": [0]}' > "$tmp/bad_type.json"
check "--all only on an LCP" 2 'holds a qp problem' -- "$perp" solve "$problems/qp_small.json" --all
check "unknown type" 2 'qp2' -- "$perp" solve "$tmp/bad_type.json"

# Frictional contact problems (issue 11): the one-contact JSON example (slides: r = (1, -0.3),
# u = (0, 0.2), docs/file-formats.md), Siconos fc2d/fc3d .dat files, and bad files.
fc=$(cd "$data/.." && pwd)
out=$("$perp" solve "$problems/friction_contact_2d.json" --method nsgs --json)
for key in status method dimension contacts iterations residual absolute_error signorini coulomb complementarity \
  dissipation r u time_ms message history; do
  check "fc json key $key" 0 "\"$key\":" -- echo "$out"
done
check "fc nsgs solved" 0 '"status": "solved"' -- echo "$out"
check "fc nsgs r" 0 '"r": \[\s*(1(\.0)?|0\.99999999[0-9]*|1\.0000000[0-9]*),\s*-0\.(3|29999999[0-9]*|3000000[0-9]*)\s*\]' -- echo "$out"
check "fc nsgs u" 0 '"u": \[\s*-?[0-9.e-]+,\s*0\.(2|19999999[0-9]*|2000000[0-9]*)\s*\]' -- echo "$out"
check "fc summary" 0 'friction contact, d = 2, 1 contacts, n = 2\) nsgs: solved .*recomputed from r: relative error .*signorini 0, coulomb 0, complementarity 0, dissipation 0 r = \[1, -0\.3\] u = \[0, 0\.2\]' -- \
  "$perp" solve "$problems/friction_contact_2d.json" --method nsgs
check "fc auto exit 0" 0 'solved' -- "$perp" solve "$problems/friction_contact_2d.json"
check "fc 3d corpus" 0 'friction contact, d = 3, 4 contacts, n = 12\) nsgs: solved' -- "$perp" solve "$fc/fc3d/Rover1039.dat" --method nsgs
check "fc 2d corpus json" 0 '"status": "solved"' -- "$perp" solve "$fc/fc2d/FrictionContactProblem00031.dat" --method nsgs --json
check "fc --all refused" 2 'holds a friction-contact problem' -- "$perp" solve "$problems/friction_contact_2d.json" --all
printf '3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 x\n' > "$tmp/fc_typo.dat"
check "fc mistyped dat" 2 "token 13 \('x'\): expected a number for W\(2, 1\)" -- "$perp" solve "$tmp/fc_typo.dat"
printf '3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0 0\n-0.5\n' > "$tmp/fc_mu.dat"
check "fc negative mu" 2 'mu\[0\] is -0\.5' -- "$perp" solve "$tmp/fc_mu.dat"
head -c 300 "$fc/fc3d/Capsules-i101-404.dat" > "$tmp/fc_truncated.dat"
check "fc truncated dat" 2 'end of input' -- "$perp" solve "$tmp/fc_truncated.dat"
echo '{"type": "friction-contact", "dimension": 2, "W": {"rows": 2, "cols": 2, "triplets": [[0, 2, 1]]}, "q": [-1, 0], "mu": [0.5]}' > "$tmp/fc_bad.json"
check "fc bad triplet" 2 'W\.triplets\[0\]\[1\] = 2 is out of range' -- "$perp" solve "$tmp/fc_bad.json"

# The demo runs every worked example as the chapter says.
check "demo" 0 "0 examples did not behave as expected" -- "$perp" demo --data "$data/.."

# perp simulate: the example scenes, the files and their columns, a PNG that decodes.
scenes=$(cd "$(dirname "$0")/../../examples/scenes" && pwd)
png_ok() {  # png_ok FILE: signature, chunk CRCs, IDAT inflates to height × (1 + 3 width) bytes
  if command -v python3 >/dev/null; then
    python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "signature"
pos, idat, size = 8, b"", None
while pos < len(data):
    (length,) = struct.unpack(">I", data[pos:pos + 4])
    kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
    (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
    assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc, kind
    if kind == b"IHDR": size = struct.unpack(">II", body[:8])
    if kind == b"IDAT": idat += body
    pos += 12 + length
w, h = size
assert len(zlib.decompress(idat)) == h * (1 + 3 * w), "pixel data size"
print("png ok", w, h)
PY
  else
    head -c 8 "$1" | od -An -c | grep -q 'P   N   G' && echo "png ok"
  fi
}
for scene in bouncing_ball two_contact_block sliding_box box_stack disk_pile painleve_rod; do
  check "simulate $scene" 0 "wrote" -- "$perp" simulate "$scenes/$scene.json" --out "$tmp/$scene" --contacts
  check "$scene plot.png decodes" 0 "png ok" -- png_ok "$tmp/$scene/plot.png"
done
# Plots (cairo): a normal size, every series drawn, --plot svg|none (issue 17).
check "15-disk plot.png under 200 KB" 0 '^ok *$' -- bash -c "s=\$(wc -c < '$tmp/disk_pile/plot.png'); [ \$s -gt 20000 ] && [ \$s -lt 200000 ] && echo ok || echo \$s"
# Up to 10 bodies a curve a body (above, the aggregates: tests/cli/plot_test.py): the pile's first ten.
python3 -c "import json, sys; s = json.load(open(sys.argv[1])); s['bodies'] = s['bodies'][:10]; json.dump(s, open(sys.argv[2], 'w'))" \
  "$scenes/disk_pile.json" "$tmp/pile10.json"
check "simulate --plot svg" 0 'plot\.svg, view\.html\}' -- "$perp" simulate "$tmp/pile10.json" --out "$tmp/pile_svg" --plot svg
check "svg header" 0 '^<\?xml .*<svg ' -- head -c 300 "$tmp/pile_svg/plot.svg"
check "svg axis labels" 0 'x axis: t \(s\) y axis: x \(m\).*y axis: y \(m\).*y axis: angle \(rad\).*y axis: energy \(J\)' -- \
  sed -n '/<desc>/,/<\/desc>/p' "$tmp/pile_svg/plot.svg"
check "svg every series in its legend" 0 '^10 3 *$' -- bash -c "sed -n '/<desc>/,/<\/desc>/p' '$tmp/pile_svg/plot.svg' | awk '/panel: horizontal/ {p=1} /panel: height/ {p=0} p && /^series: disk/ {b++} /^series: (kinetic|potential|total)/ {e++} END {print b, e}'"
# 10 bodies x 3 panels + 3 energies, each a stroked curve and a stroked legend line in its colour:
# 66 coloured stroke paths (the frame and ticks are black, the grid grey).
check "svg one path per series" 0 '^66 *$' -- bash -c "grep -o '<path [^>]*>' '$tmp/pile_svg/plot.svg' | grep 'fill:none' | grep -v 'rgb(0%,0%,0%)' | grep -vc 'rgb(90%,90%,90%)'"
check "svg under 200 KB" 0 '^ok *$' -- bash -c "[ \$(wc -c < '$tmp/pile_svg/plot.svg') -lt 200000 ] && echo ok"
# Above 10 bodies the plot shows the run's aggregates, not a curve a body (issue 38: "+166 more").
sed 's/"duration": 10.0/"duration": 0.25/' "$scenes/heap100.json" > "$tmp/heap100_short.json"
check "simulate many bodies plots aggregates" 0 'panel: height of the 100 bodies.*series: highest.*series: mean.*series: lowest.*panel: active contacts.*panel: deepest overlap.*panel: energy' -- \
  bash -c "'$perp' simulate '$tmp/heap100_short.json' --out '$tmp/heap_svg' --plot svg >/dev/null && sed -n '/<desc>/,/<\/desc>/p' '$tmp/heap_svg/plot.svg'"
check "many bodies: no curve a body" 0 '^0 *$' -- bash -c "grep -c '^series: d[0-9]' '$tmp/heap_svg/plot.svg'; true"
check "simulate --plot none" 0 '^0 *$' -- bash -c "'$perp' simulate '$scenes/bouncing_ball.json' --out '$tmp/noplot' --plot none >/dev/null && ls '$tmp/noplot' | grep -c '^plot'; true"
check "simulate --plot pdf refused" 2 'plot: pdf not in \{png,svg,none\}|pdf' -- "$perp" simulate "$scenes/bouncing_ball.json" --out "$tmp/x" --plot pdf
check "painleve diagram svg" 0 'wrote' -- "$perp" painleve --diagram "$tmp/painleve.svg"
check "painleve diagram labels" 0 'x axis: theta \(rad\).*y axis: mu.*region: inconsistent' -- cat "$tmp/painleve.svg"
check "painleve diagram png written" 0 'wrote' -- "$perp" painleve --diagram "$tmp/painleve.png"
check "painleve diagram png" 0 'png ok' -- png_ok "$tmp/painleve.png"
check "painleve diagram bad extension" 2 'extension must be \.png or \.svg' -- "$perp" painleve --diagram "$tmp/painleve.gif"
check "solve --plot history" 0 'pgs: solved' -- "$perp" solve "$data/lcp_mmc.dat" --method pgs --plot "$tmp/history.svg"
check "history plot labels" 0 'x axis: iteration y axis: natural residual.*series: pgs residual.*note: solved after [0-9]+ iterations' -- cat "$tmp/history.svg"
check "solve --plot bad extension" 2 'extension must be' -- "$perp" solve "$data/lcp_mmc.dat" --plot "$tmp/history.jpg"
# perp cones: the chapter's three-solution example (M not P, but Q), a P-matrix, a non-Q matrix.
check "cones three solutions" 0 '3 solutions.*every q has a solution.*up to 3 on one direction.*not a P-matrix' -- \
  "$perp" cones "$tmp/three.json" --plot "$tmp/cones.png"
check "cones png" 0 'png ok' -- png_ok "$tmp/cones.png"
echo '{"M": [[2, 1], [1, 2]], "q": [-1, -1]}' > "$tmp/p2.json"
check "cones P-matrix" 0 '"q_matrix_as_seen": true, "unique_as_seen": true, "p_matrix": true' -- "$perp" cones "$tmp/p2.json" --json
check "cones P solution" 0 '"solutions": \[\{"z": \[0\.33333333333333' -- "$perp" cones "$tmp/p2.json" --json
echo '{"M": [[-1, 0], [0, -1]], "q": [1, -1]}' > "$tmp/notq.json"
check "cones not Q" 0 '"solutions": \[\], .*"q_matrix_as_seen": false' -- "$perp" cones "$tmp/notq.json" --json
check "cones svg" 0 'region: cone z1 z2 \(holds q\).*point: q = \(-1, -1\)' -- bash -c "'$perp' cones '$tmp/three.json' --plot '$tmp/cones.svg' >/dev/null && cat '$tmp/cones.svg'"
echo '{"M": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "q": [-1, -1, -1]}' > "$tmp/three_by_three.json"
check "cones 3x3 refused" 2 'M is 3x3; the complementary cones are drawn in the plane' -- "$perp" cones "$tmp/three_by_three.json"
check "cones box lcp refused" 2 'holds a box-lcp problem' -- "$perp" cones "$problems/box_lcp_friction.json"
# The viewer page (tests/cli/viewer_test.py loads it in a browser): one file, nothing from outside,
# names escaped so that none can close the script element.
check "view.html written" 0 '^<!DOCTYPE html>' -- head -1 "$tmp/bouncing_ball/view.html"
check "view.html self-contained" 0 '^0 *$' -- bash -c "grep -cE 'https?://|<script[^>]*src=|<link' '$tmp/bouncing_ball/view.html'; true"
check "view.html holds the frames" 0 '"steps":3000,"stride":1,"decimated":false' -- cat "$tmp/bouncing_ball/view.html"
check "trajectory header" 0 '^t,ball\.x,ball\.y,ball\.angle,ball\.vx,ball\.vy,ball\.omega $' -- head -1 "$tmp/bouncing_ball/trajectory.csv"
check "trajectory rows: initial + 3000 steps" 0 '^3002 ' -- wc -l "$tmp/bouncing_ball/trajectory.csv"
check "contacts header" 0 '^t,body_a,body_b,x,y,gap,normal_impulse,tangent_impulse $' -- head -1 "$tmp/two_contact_block/contacts.csv"
# The resting block: two contacts per step, each carrying m g h / 2 = 0.005 N s (to the step's
# tolerance, 1e-10 on the relative error: within 1e-12 N s here) and no friction impulse.
check "block contacts at the corners" 0 '^0,block,ground,-0\.5,0,0,[0-9.e-]*,0 0,block,ground,0\.5,0,0,[0-9.e-]*,0 $' -- \
  sed -n 2,3p "$tmp/two_contact_block/contacts.csv"
check "block impulses m g h / 2" 0 '^ok ok $' -- \
  awk -F, 'NR == 2 || NR == 3 { d = $7 - 0.005; print (d < 1e-12 && d > -1e-12) ? "ok" : "off by " d }' \
  "$tmp/two_contact_block/contacts.csv"
check "energy header" 0 '^t,kinetic,potential,total,dissipated $' -- head -1 "$tmp/bouncing_ball/energy.csv"
check "stack contacts between boxes" 0 'box1,box0' -- cat "$tmp/box_stack/contacts.csv"
check "steps header" 0 '^step,t,contacts,status,method,iterations,residual,signorini,coulomb,complementarity,dissipation,warm_started,solve_ms,step_ms,fallback $' -- head -1 "$tmp/two_contact_block/steps.csv"
check "steps rows: one a step" 0 '^501 ' -- wc -l "$tmp/two_contact_block/steps.csv"
# Every step of the resting block solved, two contacts each, warm-started from the second on.
check "steps all solved" 0 '^500 500 499 $' -- awk -F, 'NR > 1 { n++; if ($4 == "solved" && $3 == 2) s++; if ($12 == 2) w++ } END { print n, s, w }' "$tmp/two_contact_block/steps.csv"
for scene in slope walls_and_rod; do
  check "simulate $scene" 0 "wrote" -- "$perp" simulate "$scenes/$scene.json" --out "$tmp/$scene" --contacts
  check "$scene steps all solved" 0 '^0 $' -- awk -F, 'NR > 1 && $4 != "solved" { bad++ } END { print bad + 0 }' "$tmp/$scene/steps.csv"
done
check "slope contacts name the plane" 0 'sticky,slope' -- cat "$tmp/slope/contacts.csv"
# Output that scales (issue 37): contacts.csv on request, --every K, --format csv|hdf5|both.
check "no contacts.csv by default" 0 '^0 *$' -- bash -c "'$perp' simulate '$scenes/two_contact_block.json' --out '$tmp/nocontacts' --plot none >/dev/null && ls '$tmp/nocontacts' | grep -c contacts; true"
# two_contact_block: 500 steps of 1 ms; --every 30 records steps 0, 30, …, 480 (17 states) and 500.
check "--every 30 rows" 0 '^0 0.03 0.48 0.5 19 501 $' -- bash -c "'$perp' simulate '$scenes/two_contact_block.json' --out '$tmp/every' --plot none --every 30 >/dev/null && awk -F, 'NR == 2 || NR == 3 || NR == 18 || NR == 19 { printf \"%s \", \$1 }' '$tmp/every/trajectory.csv' && wc -l < '$tmp/every/energy.csv' | tr '\n' ' ' && wc -l < '$tmp/every/steps.csv'"
check "--every 0 refused" 2 '--every 0: K must be >= 1' -- "$perp" simulate "$scenes/two_contact_block.json" --out "$tmp/x" --every 0
check "--format xyz refused" 2 '--format xyz: expected csv, hdf5 or both' -- "$perp" simulate "$scenes/two_contact_block.json" --out "$tmp/x" --format xyz
check "--format hdf5 writes simulation.h5" 0 'wrote .*/\{simulation\.h5, view\.html\}' -- "$perp" simulate "$scenes/two_contact_block.json" --out "$tmp/h5" --plot none --format hdf5
check "summary gives writing beside stepping" 0 'output: [0-9.e-]+ s writing \(.*\) beside [0-9.e-]+ s stepping' -- "$perp" simulate "$scenes/two_contact_block.json" --out "$tmp/h5" --plot none --format hdf5
check "3d --format both --every 100" 0 'wrote .*\{simulation\.h5, trajectory\.csv, energy\.csv, steps\.csv, view\.html\}' -- "$perp" simulate "$scenes/tower3d.json" --out "$tmp/tower3d_h5" --format both --every 100
check "3d --every 100 rows" 0 '^8 601 $' -- bash -c "wc -l < '$tmp/tower3d_h5/trajectory.csv' | tr '\n' ' ' && wc -l < '$tmp/tower3d_h5/steps.csv'"
check "simulate --solver pgs" 0 "wrote" -- "$perp" simulate "$scenes/bouncing_ball.json" --out "$tmp/pgs" --solver pgs
check "simulate unknown solver" 2 "unknown method 'newton'" -- "$perp" simulate "$scenes/bouncing_ball.json" --out "$tmp/x" --solver newton
# One spelling per setting (docs/python.md): --method; --solver and the scene keys "solver" and
# "tolerance" still read for one release, with a warning line naming the new spelling, and the
# same run as the new spelling gives.
check "simulate --method pgs" 0 "wrote" -- "$perp" simulate "$scenes/bouncing_ball.json" --out "$tmp/pgs_new" --method pgs
check "--method pgs same trajectory as --solver pgs" 0 '^same *$' -- bash -c "cmp -s '$tmp/pgs/trajectory.csv' '$tmp/pgs_new/trajectory.csv' && echo same"
check "--solver warns" 0 'perp: warning: --solver is deprecated; use --method' -- "$perp" simulate "$scenes/bouncing_ball.json" --out "$tmp/pgs" --solver pgs
check "--method does not warn" 0 '^ *$' -- bash -c "'$perp' simulate '$scenes/bouncing_ball.json' --out '$tmp/pgs_new' --method pgs 2>&1 >/dev/null"
check "--method and --solver refused" 2 '--solver is the deprecated spelling of --method; give --method alone' -- "$perp" simulate "$scenes/bouncing_ball.json" --out "$tmp/x" --method pgs --solver pgs
check "bad --method named as given" 2 '--method schur cannot solve this scene' -- "$perp" simulate "$scenes/bouncing_ball.json" --out "$tmp/x" --method schur
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); s.update(method='pgs', tol=1e-9); json.dump(s, open(sys.argv[2], 'w'))" "$scenes/bouncing_ball.json" "$tmp/keys_new.json"
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); s.update(solver='pgs', tolerance=1e-9); json.dump(s, open(sys.argv[2], 'w'))" "$scenes/bouncing_ball.json" "$tmp/keys_old.json"
check "scene keys solver and tolerance warn" 0 'warning: .*keys_old.json: the scene key "solver" is deprecated; use "method".*the scene key "tolerance" is deprecated; use "tol"' -- "$perp" simulate "$tmp/keys_old.json" --out "$tmp/keys_old"
check "scene keys method and tol" 0 "wrote" -- "$perp" simulate "$tmp/keys_new.json" --out "$tmp/keys_new"
check "old scene keys same trajectory" 0 '^same *$' -- bash -c "cmp -s '$tmp/keys_old/trajectory.csv' '$tmp/keys_new/trajectory.csv' && cmp -s '$tmp/keys_old/energy.csv' '$tmp/keys_new/energy.csv' && echo same"
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); s.update(method='nsgs', tol=1e-6, max_iter=3, friction=0.3); json.dump(s, open(sys.argv[2], 'w'))" "$scenes/two_contact_block.json" "$tmp/keys_limits.json"
check "scene tol and max_iter" 0 "wrote" -- "$perp" simulate "$tmp/keys_limits.json" --out "$tmp/keys_limits" --plot none
check "--tol and --max-iter over the scene's" 0 "wrote" -- "$perp" simulate "$scenes/two_contact_block.json" --out "$tmp/flags_limits" --plot none --method nsgs --tol 1e-6 --max-iter 3
sed 's/"friction": [0-9.]*/"friction": 0.3/' "$scenes/two_contact_block.json" > "$tmp/block03.json"
check "--tol/--max-iter same run as the scene keys" 0 '^same *$' -- bash -c "'$perp' simulate '$tmp/block03.json' --out '$tmp/flags_limits' --plot none --method nsgs --tol 1e-6 --max-iter 3 >/dev/null && cmp -s '$tmp/keys_limits/trajectory.csv' '$tmp/flags_limits/trajectory.csv' && echo same"
# nsgs needs more than 3 sweeps at the first step: capped, it stops at max-iterations there (auto then
# answers from its point); --max-iter 0 is the method's own limit, with no fallback
check "max_iter caps the sweeps" 0 '^step,[^ ]* 0,[^ ]*nsgs: max-iterations *$' -- head -2 "$tmp/keys_limits/steps.csv"
check "--max-iter 0: the method's limit" 0 '^0 *$' -- bash -c "'$perp' simulate '$tmp/keys_limits.json' --out '$tmp/keys_nolimit' --plot none --max-iter 0 >/dev/null && (grep -c 'max-iterations' '$tmp/keys_nolimit/steps.csv' || true)"
check "--tol 0 refused" 2 '--tol 0: the tolerance must be finite and > 0' -- "$perp" simulate "$scenes/bouncing_ball.json" --out "$tmp/x" --tol 0
check "--max-iter -1 refused" 2 '--max-iter -1: expected an integer in \[0, 2147483647\]' -- "$perp" simulate "$scenes/bouncing_ball.json" --out "$tmp/x" --max-iter -1
check "3d --tol 1e-300 leaves steps unsolved" 1 'unsolved|not solved' -- "$perp" simulate "$scenes/tower3d.json" --out "$tmp/x3tol" --tol 1e-300 --max-iter 5
# The progress bar: only on a terminal, only for runs over a second.
sed 's/"duration": 1.5/"duration": 8.0/' "$scenes/disk_pile.json" > "$tmp/long.json"
check "no progress bar when not a terminal" 0 '^ *$' -- bash -c "'$perp' simulate '$tmp/long.json' --out '$tmp/long' 2>&1 >/dev/null"
if command -v script >/dev/null; then
  # The one-second delay set to 0, so that the check does not depend on the machine's speed.
  check "progress bar on a terminal" 0 '100% step 8000/8000' -- \
    script -qec "PERP_PROGRESS_DELAY_MS=0 '$perp' simulate '$tmp/long.json' --out '$tmp/long' >/dev/null" /dev/null
fi
sed 's/"mass": 1.0/"mass": -1/' "$scenes/bouncing_ball.json" > "$tmp/badmass.json"
check "scene bad mass" 2 'bodies\[0\]\.mass must be > 0' -- "$perp" simulate "$tmp/badmass.json" --out "$tmp/x"
sed 's/"radius"/"radus"/' "$scenes/bouncing_ball.json" > "$tmp/badkey.json"
check "scene unknown key" 2 'unknown key "bodies\[0\]\.shape\.radus"' -- "$perp" simulate "$tmp/badkey.json" --out "$tmp/x"
check "scene missing" 2 "cannot open" -- "$perp" simulate "$tmp/none.scene.json" --out "$tmp/x"
check "simulate needs --out" 2 "out" -- "$perp" simulate "$scenes/bouncing_ball.json"

# perp painleve.
check "painleve inconsistent" 0 '"regime": "inconsistent", "solutions": \[\]' -- "$perp" painleve --theta 1.1071487177940904 --mu 1.5 --json
check "painleve alpha" 0 '"alpha": -0\.19999999' -- "$perp" painleve --theta 1.1071487177940904 --mu 1.5 --json
check "painleve contact" 0 'contact' -- "$perp" painleve --theta 1 --mu 0.5
check "painleve indeterminate" 0 '"regime": "indeterminate", "solutions": \[0, ' -- "$perp" painleve --theta 1.1 --mu 2 --theta-dot 4 --json
check "painleve critical mu" 0 '^\{"mu": 1\.3333333333333333, "theta": 1\.1071487177940904\} $' -- "$perp" painleve --critical-mu --json
check "painleve diagram" 0 "wrote" -- "$perp" painleve --diagram "$tmp/diagram.png"
check "painleve diagram decodes" 0 "png ok" -- png_ok "$tmp/diagram.png"
check "painleve needs theta and mu" 2 "--theta and --mu are required" -- "$perp" painleve --theta 1
check "painleve bad theta" 2 "theta must be in \(0, pi/2\)" -- "$perp" painleve --theta 2 --mu 1
check "painleve bad mass" 2 "mass must be finite and > 0" -- "$perp" painleve --theta 1 --mu 1 --mass 0

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
check "classify tolerance in %g" 2 "tolerance must be in \\[0, 1\\), got -1e-20" -- "$perp" classify "$tmp/only_m.json" --tol -1e-20

# Issue 15: no crash and no unbounded resource on hostile input (docs/cli.md, "Limits and exit codes").
echo '{"M": [[1e-310]], "q": [-1e-310]}' > "$tmp/subnormal.json"
check "subnormal lemke solves" 0 '"z": \[\s*1(\.0)?\s*\]' -- "$perp" solve "$tmp/subnormal.json" --method lemke --json
check "subnormal auto" 0 'solved' -- "$perp" solve "$tmp/subnormal.json"
printf '1\n0\n1\n1\n1 1\n1e-310\n-1e-310\n' > "$tmp/subnormal.dat"
check "subnormal dat lemke" 0 'z = \[1\]' -- "$perp" solve "$tmp/subnormal.dat" --method lemke
deep=$(printf '%*s' 87000 '' | tr ' ' '[')
printf '{"M": %s, "q": [1]}' "$deep" > "$tmp/deep.json"
check "deep json solve" 2 'nested deeper than 64 levels' -- "$perp" solve "$tmp/deep.json"
check "deep json classify" 2 'nested deeper than 64 levels' -- "$perp" classify "$tmp/deep.json"
printf '{"bodies": %s}' "$deep" > "$tmp/deep_scene.json"
check "deep json scene" 2 'nested deeper than 64 levels' -- "$perp" simulate "$tmp/deep_scene.json" --out "$tmp/deep_out"
printf '2\n1\n2\n2\n2147483647 1 1\n2\n2\n2 2\n0 1\n0\n1 0 0 1\n1 1\n' > "$tmp/blocks.dat"
check "sparse block claim" 2 'stored blocks \(nbblocks\) need .* but the input holds only' -- "$perp" solve "$tmp/blocks.dat"
printf '2000\n0\n2000\n2000\n2000 2000\n' > "$tmp/dense_claim.dat"
check "dense claim" 2 "M's 2000x2000 entries need 4000000 more numbers" -- "$perp" solve "$tmp/dense_claim.dat"
ln -s /dev/zero "$tmp/zero.dat"
check "dev zero is capped" 2 'not a regular file and holds more than 1073741824 bytes' -- "$perp" solve "$tmp/zero.dat"
# enum at n = 25 stops at its budget (2^18 sets) in about a second; --max-iter goes further.
row() { local i=$1 n=$2 j out=""; for ((j = 0; j < n; j++)); do out+="${out:+, }$([ "$i" -eq "$j" ] && echo -1 || echo 0)"; done; echo "[$out]"; }
matrix() { local n=$1 i out=""; for ((i = 0; i < n; i++)); do out+="${out:+, }$(row "$i" "$n")"; done; echo "[$out]"; }
ones() { local n=$1 i out=""; for ((i = 0; i < n; i++)); do out+="${out:+, }-1"; done; echo "[$out]"; }
echo "{\"M\": $(matrix 25), \"q\": $(ones 25)}" > "$tmp/enum25.json"
check "enum budget" 1 'max-iterations.*limit of 262144 active sets' -- "$perp" solve "$tmp/enum25.json" --method enum
check "enum --all budget" 1 'max-iterations' -- "$perp" solve "$tmp/enum25.json" --method enum --all
echo "{\"M\": $(matrix 10), \"q\": $(ones 10)}" > "$tmp/enum10.json"
check "enum proves within budget" 1 'infeasible' -- "$perp" solve "$tmp/enum10.json" --method enum
# Blocks [[1, 3], [0.2, 1]]: P (every minor > 0), but only the enumeration shows it.
hidden_p() { local n=$1 i j out="" r; for ((i = 0; i < n; i++)); do r=""; for ((j = 0; j < n; j++)); do
  if [ "$i" -eq "$j" ]; then v=1; elif [ $((i / 2)) -eq $((j / 2)) ]; then v=$([ $((i % 2)) -eq 0 ] && echo 3 || echo 0.2); else v=0; fi
  r+="${r:+, }$v"; done; out+="${out:+, }[$r]"; done; echo "{\"M\": [$out]}"; }
hidden_p 10 > "$tmp/hidden_p10.json"
check "classify minor budget" 0 'p-matrix +\? +undecided +the principal-minor enumeration stopped at its budget of 5 nodes' -- \
  "$perp" classify "$tmp/hidden_p10.json" --max-minor-nodes 5
check "classify minor default" 0 'p-matrix +yes +exact' -- "$perp" classify "$tmp/hidden_p10.json"
hidden_p 30 > "$tmp/hidden_p30.json"
check "classify n = 30 ends undecided" 0 'p-matrix +\? +undecided .*budget' -- \
  "$perp" classify "$tmp/hidden_p30.json" --max-minor-size 40 --max-copositive-size 30
check "classify large sizes end" 0 '"n": 25' -- "$perp" classify "$tmp/enum25.json" --max-minor-size 40 --max-copositive-size 30 --json
# history is capped: 10^6 sweeps print at most 10 000 residuals.
echo '{"M": [[1, -1], [-1, 1]], "q": [-1, -1]}' > "$tmp/no_solution.json"
"$perp" solve "$tmp/no_solution.json" --method pgs --max-iter 1000000 --json > "$tmp/long_history.json"
check "history capped" 0 '^[0-9]{4,6} *$' -- bash -c "[ \$(wc -c < '$tmp/long_history.json') -lt 1000000 ] && wc -c < '$tmp/long_history.json'"
# simulate refuses runs whose CSVs cannot fit, and piles of overlapping bodies, before writing.
bodies() { local n=$1 x=$2 i out=""; for ((i = 0; i < n; i++)); do out+="${out:+, }{\"name\": \"b$i\", \"shape\": {\"type\": \"disk\", \"radius\": 0.5}, \"mass\": 1, \"position\": [$( [ "$x" = spread ] && echo "$i" || echo "0.00$((i % 10))" ), 1]}"; done; echo "[$out]"; }
scene_head='"gravity": [0, -9.81], "restitution": 0.5, "friction": 0.3'
echo "{$scene_head, \"timestep\": 0.001, \"duration\": 1000000, \"bodies\": $(bodies 100 spread)}" > "$tmp/huge_run.json"
check "simulate output too large" 2 'steps would write about .* GB of CSV' -- "$perp" simulate "$tmp/huge_run.json" --out "$tmp/huge_out"
check "simulate wrote nothing" 0 '^0 *$' -- bash -c "ls -A '$tmp/huge_out' 2>/dev/null | wc -l"
echo "{$scene_head, \"timestep\": 0.001, \"duration\": 0.01, \"bodies\": $(bodies 160 pile)}" > "$tmp/pile.json"
check "simulate overlap pile" 2 'more than 10752 contacts.*deepest overlap is' -- "$perp" simulate "$tmp/pile.json" --out "$tmp/pile_out"

# Issue 15, consistent messages and no lost output: write errors, non-finite output, warnings.
if [ -w /dev/full ]; then
  check "write error exits 4" 4 'could not write the output to standard output' -- \
    bash -c "'$perp' solve '$data/lcp_deudeu.dat' --json > /dev/full"
  check "classify write error" 4 'could not write' -- bash -c "'$perp' classify '$data/lcp_deudeu.dat' > /dev/full"
fi
check "painleve refuses inf" 2 'beta = inf: not finite for these inputs' -- \
  "$perp" painleve --theta 1 --mu 0.5 --theta-dot 1e200 --json
check "painleve mass 1e-320" 2 'alpha = inf' -- "$perp" painleve --theta 1 --mu 0.5 --mass 1e-320 --json
check "--all without enum warns" 0 'warning: --all lists every solution only with --method enum' -- \
  "$perp" solve "$tmp/three.json" --all --method lemke
check "demo --data missing warns" 0 'warning: --data .*/nowhere: no lcp/ folder' -- \
  bash -c "'$perp' demo --data '$tmp/nowhere' 2>&1 >/dev/null; exit 0"
check "--tol 1e-400" 2 '--tol: 1e-400 is out of the range of a double' -- "$perp" solve "$tmp/three.json" --tol 1e-400
check "--tol 0 in %g" 2 'tolerance must be finite and > 0, got 0 *$' -- "$perp" solve "$tmp/three.json" --tol 0
printf '{"M": [[1]], "q": [-1], "q": [-2]}' > "$tmp/duplicate.json"
check "json duplicate key" 2 'the key "q" appears twice in one object' -- "$perp" solve "$tmp/duplicate.json"
printf '{"M": [[1]], "q": [-1e-400]}' > "$tmp/underflow.json"
check "json 1e-400" 2 'the number -1e-400 at byte 19 is out of the range of a double' -- "$perp" solve "$tmp/underflow.json"
printf '\xef\xbb\xbf1\n0\n1\n1\n1 1\n1\n-1\n' > "$tmp/bom.dat"
check "dat with a BOM" 0 'z = \[1\]' -- "$perp" solve "$tmp/bom.dat"
printf '\xef\xbb\xbf{"M": [[1]], "q": [-1]}' > "$tmp/bom.json"
check "json with a BOM" 0 'z = \[1\]' -- "$perp" solve "$tmp/bom.json"
check "classify mlcp dat" 2 'is a Siconos mlcp file, not an LCP' -- "$perp" classify "$data/../mlcp/deudeu_mlcp.dat"
# No false claim at any scale: the 2x2 times 1e-150 and 1e150 (docs/solvers.md).
echo '{"M": [[2e-150, 1e-150], [1e-150, 2e-150]], "q": [-5e-150, -6e-150]}' > "$tmp/tiny2.json"
echo '{"M": [[2e150, 1e150], [1e150, 2e150]], "q": [-5e150, -6e150]}' > "$tmp/huge2.json"
for m in pgs psor interior-point auto lemke; do
  check "$m at 1e-150" 0 '"z": \[\s*1\.333333[0-9]*,\s*2\.333333' -- "$perp" solve "$tmp/tiny2.json" --method $m --json
  check "$m at 1e150" 0 '"z": \[\s*1\.333333[0-9]*,\s*2\.333333' -- "$perp" solve "$tmp/huge2.json" --method $m --json
done
check "relative_residual key" 0 '"relative_residual": ' -- "$perp" solve "$tmp/tiny2.json" --json
echo '{"M": [[1e-12]], "q": [-1]}' > "$tmp/tiny_pivot.json"
check "lemke tiny pivot is no proof" 1 'numerical-failure.*below the pivot tolerance' -- "$perp" solve "$tmp/tiny_pivot.json" --method lemke
echo '{"M": [[1]], "q": [-1e155]}' > "$tmp/huge_q.json"
check "smoothing huge q" 0 'smoothing: solved' -- "$perp" solve "$tmp/huge_q.json" --method smoothing

# simulate: names quoted per RFC 4180, --solver checked before any write, a failed run leaves the
# previous files untouched (temporary files renamed at the end), no non-finite number written.
disk() { echo "{\"name\": $1, \"shape\": {\"type\": \"disk\", \"radius\": 0.1}, \"mass\": 1, \"position\": [$2, 0.05]$3}"; }
echo "{$scene_head, \"timestep\": 0.01, \"duration\": 0.05, \"ground\": {\"height\": 0}, \"bodies\": [$(disk '"a,b"' 0 ''), $(disk '"say \"hi\"\nthere"' 1 '')]}" > "$tmp/names.json"
check "simulate odd names" 0 'wrote' -- "$perp" simulate "$tmp/names.json" --out "$tmp/names_out" --contacts
check "names quoted in the header" 0 '^t,"a,b.x",.*"say ""hi""' -- head -c 200 "$tmp/names_out/trajectory.csv"
check "csv columns intact" 0 '^13 13 8 8 *$' -- python3 -c "import csv; t = list(csv.reader(open('$tmp/names_out/trajectory.csv'))); c = list(csv.reader(open('$tmp/names_out/contacts.csv'))); print(len(t[0]), len(t[1]), len(c[0]), len(c[1]))"
before=$(cat "$tmp/names_out"/*.csv "$tmp/names_out/plot.png" "$tmp/names_out/view.html" | md5sum)
check "simulate bad --solver" 2 '--solver schur cannot solve this scene' -- "$perp" simulate "$tmp/names.json" --out "$tmp/names_out" --solver schur
echo "{$scene_head, \"timestep\": 1e153, \"duration\": 5e153, \"bodies\": [$(disk '"b"' 0 ', "velocity": [0, 1e152]')]}" > "$tmp/late_overflow.json"
check "simulate stops at a non-finite value" 2 'at t = 2e\+153 s, the kinetic energy is inf.*left as they were' -- \
  "$perp" simulate "$tmp/late_overflow.json" --out "$tmp/names_out"
check "failed runs left the old files" 0 "^$before *\$" -- bash -c "cat '$tmp/names_out'/*.csv '$tmp/names_out/plot.png' '$tmp/names_out/view.html' | md5sum"
check "no temporary files left" 0 '^6 *$' -- bash -c "ls -A '$tmp/names_out' | wc -l"
echo "{$scene_head, \"timestep\": 0.01, \"duration\": 0.05, \"bodies\": [$(disk '"b"' 0 '') ]}" | sed 's/"mass": 1/"mass": 1e-320/' > "$tmp/tiny_mass.json"
check "scene mass 1e-320 by key path" 2 'bodies\[0\]\.mass = 9\.99989e-321 is too small' -- "$perp" simulate "$tmp/tiny_mass.json" --out "$tmp/x_out"
echo "{$scene_head, \"timestep\": 1e300, \"duration\": 1e300, \"bodies\": [$(disk '"b"' 0 '')]}" > "$tmp/huge_step.json"
check "scene timestep 1e300" 2 'timestep = 1e\+300' -- "$perp" simulate "$tmp/huge_step.json" --out "$tmp/x_out"
check "nothing written for refused scenes" 0 '^0 *$' -- bash -c "ls -A '$tmp/x_out' 2>/dev/null | wc -l"
# --out swapped in as a whole folder (issue 38): a second run leaves its own files only, never a
# mix with the first's; a folder holding anything but an earlier run's result files is refused
# before any work; SIGTERM leaves the earlier results and no temporary folder beside them.
"$perp" simulate "$tmp/names.json" --out "$tmp/swap" --contacts >/dev/null
check "second run replaces the folder" 0 '^contacts\.csv energy\.csv steps\.csv trajectory\.csv view\.html *$' -- \
  bash -c "'$perp' simulate '$tmp/names.json' --out '$tmp/swap/' --plot none --contacts >/dev/null && ls '$tmp/swap' | tr '\n' ' '"
# Issue 38: "--out DIR/" printed "wrote DIR//{...}".
check "trailing slash printed once" 0 "wrote [^ ]*/swap/\{trajectory" -- "$perp" simulate "$tmp/names.json" --out "$tmp/swap//" --plot none --contacts
before=$(cat "$tmp/swap"/*.csv | md5sum)
touch "$tmp/swap/notes.txt"
check "--out holding other files refused" 2 "holds 'notes\.txt', which is not an earlier run's result file" -- \
  "$perp" simulate "$tmp/names.json" --out "$tmp/swap"
rm "$tmp/swap/notes.txt"
touch "$tmp/swap/.energy.csv.partial-12345"  # what an earlier version left when stopped: replaced
check "--out with an earlier version's temporaries replaced" 0 '^contacts\.csv energy\.csv steps\.csv trajectory\.csv view\.html *$' -- \
  bash -c "'$perp' simulate '$tmp/names.json' --out '$tmp/swap' --plot none --contacts >/dev/null && ls -A '$tmp/swap' | tr '\n' ' '"
before=$(cat "$tmp/swap"/*.csv | md5sum)
rm "$tmp/swap/view.html" && mkdir "$tmp/swap/view.html" && touch "$tmp/swap/view.html/kept"
check "--out holding a folder named as a result refused" 2 "holds 'view\.html', which is not an earlier run's" -- \
  "$perp" simulate "$tmp/names.json" --out "$tmp/swap"
check "refused runs left the folder" 0 "^$before *\$" -- bash -c "cat '$tmp/swap'/*.csv | md5sum"
check "refused runs kept the folder's own folder" 0 'kept' -- ls "$tmp/swap/view.html"
echo "{\"x\": 1}" > "$tmp/not_a_folder"
check "--out naming a file refused" 2 "exists and is not a folder" -- "$perp" simulate "$tmp/names.json" --out "$tmp/not_a_folder"
"$perp" simulate "$tmp/names.json" --out "$tmp/term" >/dev/null
sed 's/"duration": 1.5/"duration": 200.0/' "$scenes/disk_pile.json" > "$tmp/very_long.json"
stopped_by_sigterm "simulate" "$tmp/term" 1.5 "" -- "$tmp/very_long.json"


# perp diagnose (issue 17): the troubleshooting table on the corpus, other problem types and scenes.
check "diagnose deudeu" 0 'classes: symmetric, positive-definite.*recommended: lemke.*lemke +solved.*findings: none.*verdict: solved by lemke' -- \
  "$perp" diagnose "$data/lcp_deudeu.dat"
check "diagnose no solution" 1 'not P: minor \{0, 2\} = -1.*2\^3 active sets examined: LCP\(q, M\) has no solution.*zero or negative diagonal: PGS cannot run.*M\(0, 0\) = 0.*Newton stalls.*verdict: no method solved it' -- \
  "$perp" diagnose "$data/lcp_Pang_isolated_sol_perturbed.dat"
# An infeasible LCP by hand (w = -z - 1 < 0 for every z >= 0): the verdict is the proof, in the JSON too.
echo '{"type": "lcp", "M": [[-1]], "q": [-1]}' > "$tmp/infeasible.json"
check "diagnose infeasible" 1 'verdict: no solution exists: enum proves it' -- "$perp" diagnose "$tmp/infeasible.json"
check "diagnose infeasible json" 1 '"certificate": \{ *"method": "enum"' -- "$perp" diagnose "$tmp/infeasible.json" --json
# Every corpus file: a JSON object whose verdict agrees with the methods' statuses and the exit code.
for f in "$data"/*.dat; do
  check "diagnose $(basename "$f")" 0 '^consistent *$' -- bash -c "'$perp' diagnose '$f' --json > '$tmp/diag.json'; code=\$?; python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
solved = any(m[\"status\"] == \"solved\" for m in d[\"methods\"])
assert d[\"solved\"] == solved and int(sys.argv[2]) == (0 if solved else 1), (d[\"solved\"], sys.argv[2])
assert all(m[\"curve\"] in (\"converging\", \"stalling\", \"oscillating\", \"too short\", \"no history\") for m in d[\"methods\"])
assert all(set(f) >= {\"cause\", \"evidence\", \"fix\", \"helped\", \"outcome\"} for f in d[\"findings\"])
assert d[\"matrix\"][\"n\"] > 0 and \"classes\" in d[\"matrix\"] and \"scaling\" in d[\"matrix\"]
print(\"consistent\")' '$tmp/diag.json' \$code"
done
# The fixes the chapter suggests, tried: PGS oscillates on this P-matrix (not symmetric, not
# diagonally dominant) and converges from Lemke's z; Newton stalls here and solves from PGS's z;
# a condition of 1e12 is reported with the diagonal scaling tried.
echo '{"M": [[1.2, -2.2], [2.5, 1.3]], "q": [0.7, -0.6]}' > "$tmp/pgs_oscillates.json"
check "diagnose pgs warm start" 0 'pgs +max-iterations .*curve oscillating.*PGS does not converge.*neither symmetric PSD nor diagonally dominant.*tried: pgs from lemke.s z: pgs: solved.*-> helped' -- \
  "$perp" diagnose "$tmp/pgs_oscillates.json"
echo '{"M": [[1.4, 2.3, 2.9], [-0.4, 1.1, 2.6], [-1.7, 1.5, 0.7]], "q": [-1.0, -1.3, -1.8]}' > "$tmp/newton_stalls.json"
check "diagnose newton from pgs" 0 'newton-fb +no-solution-found.*Newton stalls.*generalized Jacobian of min\(z, w\).*tried: newton-fb from pgs.s z: newton-fb: solved.*-> helped' -- \
  "$perp" diagnose "$tmp/newton_stalls.json"
echo '{"M": [[1, 0], [0, 1e-12]], "q": [-1, -1e-12]}' > "$tmp/ill.json"
check "diagnose ill conditioning" 0 'condition estimate 1e\+12.*ill conditioning.*rescale: solve D M D' -- "$perp" diagnose "$tmp/ill.json"
check "diagnose mlcp singular A" 0 'Schur reduction is not available.*tried: enum: solved.*-> helped' -- \
  "$perp" diagnose "$data/../mlcp/diodeBridge_mlcp.dat"
check "diagnose fc2d" 0 'nsgs +solved' -- "$perp" diagnose "$fc/fc2d/FrictionContactProblem00031.dat"
check "diagnose box lcp" 0 'dantzig +solved' -- "$perp" diagnose "$problems/box_lcp_friction.json"
check "diagnose qp" 0 'verdict: solved' -- "$perp" diagnose "$problems/qp_small.json"
# One contact, W = [[1, 2], [2, 1]], q = (-1, 1): a solution (sliding) exists exactly for mu < 1/2
# (r_n = 1 / (1 - 2 mu)); at mu = 3 there is none, and the sweep brackets 1/2.
echo '{"type": "friction-contact", "dimension": 2, "W": {"rows": 2, "cols": 2, "triplets": [[0,0,1],[0,1,2],[1,0,2],[1,1,1]]}, "q": [-1, 1], "mu": [3]}' > "$tmp/painleve_fc.json"
check "diagnose painleve-type fc" 1 'friction large enough for a Painleve-type inconsistency.*solved up to mu = 0\.375, not at mu = 0\.75' -- \
  "$perp" diagnose "$tmp/painleve_fc.json"
check "diagnose scene" 0 'run: 500 steps.*0 unsolved.*steps by method: auto 1, nsgs 499; 0 fell back to auto.*findings: none.*verdict: every step solved' -- "$perp" diagnose "$scenes/two_contact_block.json"
# Counts in the singular where they are 1 (the issue's "1 bodies").
check "diagnose scene plurals" 0 'run: 500 steps, 1 body, up to 1 contact;.*at most 1 iteration in one step' -- \
  "$perp" diagnose "$scenes/painleve_rod.json"
# Painleve's rod at tan(theta) = 2, mu 1.5, sliding: by hand alpha = (1/m)(1 + 3 cos(cos - mu sin)) = -0.2
# and the bound (tan^2 + 4)/(3 tan) = 4/3; the contact named.
check "diagnose painleve start" 0 'Painleve-inconsistent start.*contact rod-ground slides \(u_T = 1 m/s\) with alpha = W_NN - mu s W_NT = -0\.2 <= 0 at mu = 1\.5.*consistent for mu < 1\.33' -- \
  "$perp" diagnose "$scenes/painleve_rod.json"
# At mu 1.2 < 4/3 the same start is consistent: no such finding.
sed 's/"friction": 1.5/"friction": 1.2/' "$scenes/painleve_rod.json" > "$tmp/painleve_consistent.json"
check "diagnose painleve consistent" 0 'findings: none' -- "$perp" diagnose "$tmp/painleve_consistent.json"
# A disk hitting the ground at 10 m/s with h = 5 ms sinks 2.6 cm into it in the landing step. Plain
# Moreau-Jean ("baumgarte": 0) leaves it there; baumgarte with split impulse pushes it out.
echo '{"gravity": [0, -9.81], "timestep": 0.005, "duration": 1.0, "restitution": 0, "friction": 0.3, "ground": {"height": 0}, "baumgarte": 0,
 "bodies": [{"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 1, "position": [0, 0.2], "velocity": [0, -10]}]}' > "$tmp/hard_ball_plain.json"
check "diagnose deep penetration" 0 'deep penetration.*0\.0257 m in the last.*baumgarte 0\.2 with split impulse.*-> helped' -- "$perp" diagnose "$tmp/hard_ball_plain.json"
# The same at the default step (the split impulse on): pushed out to the 5 mm slop, the landing's
# 2.6 cm is the finding, and half the timestep halves it.
sed 's/, "baumgarte": 0//' "$tmp/hard_ball_plain.json" > "$tmp/hard_ball.json"
check "diagnose deep penetration, stabilized" 0 'deep penetration.*0\.005[0-9]* m in the last.*stabilization on, slop 0\.005 m.*halve the timestep.*-> helped' -- "$perp" diagnose "$tmp/hard_ball.json"
check "diagnose scene json" 0 '"type": "scene"' -- "$perp" diagnose "$tmp/hard_ball.json" --json
# Drift: a disk dropped from 1 m lands at 0.45 s, after the first quarter of the run; plain
# Moreau-Jean leaves it inside the ground from then on, so the last quarter's overlap is deeper than
# the first quarter's (none): the drift branch, and stabilization pulls it out.
echo '{"gravity": [0, -9.81], "timestep": 0.01, "duration": 1.0, "restitution": 0, "friction": 0, "ground": {"height": 0}, "baumgarte": 0,
 "bodies": [{"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 1, "position": [0, 1.1]}]}' > "$tmp/late_landing.json"
check "diagnose drift" 0 'drift: penetration grows.*evidence: deepest overlap 0 m in the first quarter of the run, [0-9.e-]+ m in the last.*fix: add stabilization.*-> helped' -- \
  "$perp" diagnose "$tmp/late_landing.json"
check "diagnose drift json" 0 '^drift *$' -- bash -c "'$perp' diagnose '$tmp/late_landing.json' --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [f for f in d[\"findings\"] if f[\"cause\"].startswith(\"drift\")]
assert d[\"solved\"] and len(f) == 1 and f[0][\"helped\"] is True, d[\"findings\"]
assert d[\"run\"][\"deepest_overlap\"] < 0
print(\"drift\")'"
# Unsolved steps: PGS cannot run on the Stewart-Trinkle LCP (its friction-cone rows have a zero
# diagonal), so every step in contact ends not-applicable; halving mu cannot help that.
echo '{"gravity": [0, -9.81], "timestep": 0.01, "duration": 0.1, "restitution": 0, "friction": 0.3, "method": "pgs", "ground": {"height": 0},
 "bodies": [{"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 1, "position": [0, 0.1]}]}' > "$tmp/pgs_friction.json"
check "diagnose unsolved with friction" 1 'run: 10 steps.*10 unsolved.*unsolved steps with friction \(Painleve-type inconsistency is possible\).*evidence: 10 steps unsolved, the first at step 0 \(not-applicable\), largest mu 0\.3.*fix: lower mu \(here: halved\).*10 unsolved steps with mu halved -> did not help.*verdict: 10 steps unsolved' -- \
  "$perp" diagnose "$tmp/pgs_friction.json"
# Unsolved steps without friction: a tolerance of 1e-300 that PGS cannot reach once the two stacked
# disks' contacts couple; the finding names no friction and suggests another method (not tried).
echo '{"gravity": [0, -9.81], "timestep": 0.01, "duration": 0.05, "restitution": 0, "friction": 0, "method": "pgs", "tol": 1e-300, "ground": {"height": 0},
 "bodies": [{"name": "a", "shape": {"type": "disk", "radius": 0.1}, "mass": 1, "position": [0, 0.1]},
            {"name": "b", "shape": {"type": "disk", "radius": 0.1}, "mass": 3, "position": [0.05, 0.29365], "velocity": [0.3, -0.7]}]}' > "$tmp/unreachable_tolerance.json"
check "diagnose unsolved without friction" 1 '[1-9][0-9]* unsolved.*\* unsolved steps +evidence: [1-9][0-9]* steps unsolved +fix: another method \(--method lemke\) +tried: not tried -> not judged.*verdict: [1-9][0-9]* steps unsolved' -- \
  "$perp" diagnose "$tmp/unreachable_tolerance.json"
check "diagnose unsolved status json" 0 '^max-iterations *$' -- bash -c "'$perp' diagnose '$tmp/unreachable_tolerance.json' --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert not d[\"solved\"] and \"unsolved steps\" in [f[\"cause\"] for f in d[\"findings\"]]
print(d[\"run\"][\"first_unsolved_status\"])'"
check "diagnose unknown file" 2 'cannot open' -- "$perp" diagnose "$tmp/nothing.dat"
echo '{"bodies": 3}' > "$tmp/neither.json"
check "diagnose neither problem nor scene" 2 'as a scene:' -- "$perp" diagnose "$tmp/neither.json"

# --trace (issue 17): the chapter's Lemke table by hand (w = M z + q + d z0, d = 1): z0 enters at
# 3 with w2 leaving; z2 enters, w1 leaves at ratio 2 (z0 = 1); z1 enters, z0 leaves at ratio 1.
check "trace lemke pivot 1" 0 'lemke pivot 1: z0 enters, w2 leaves \(ratio 3\); z0 = 3; basis \[w1 = 2, z0 = 3\]; ratio test \[1, 3\]' -- \
  "$perp" solve "$tmp/chapter.json" --method lemke --trace
check "trace lemke pivot 3" 0 'lemke pivot 3: z1 enters, z0 leaves \(ratio 1\); z0 = 0; basis \[z2 = 1, z1 = 1\]; ratio test \[2, 1\]; residual 0 .*lemke: solved in 3 iterations' -- \
  "$perp" solve "$tmp/chapter.json" --method lemke --trace
check "trace lemke json" 0 '^well-formed *$' -- bash -c "'$perp' solve '$tmp/chapter.json' --method lemke --trace --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d[\"trace\"]
assert d[\"status\"] == \"solved\" and len(t) == d[\"iterations\"] == 3, d
assert [(e[\"entering\"], e[\"leaving\"]) for e in t] == [(\"z0\", \"w2\"), (\"z2\", \"w1\"), (\"z1\", \"z0\")], t
assert [e[\"ratio\"] for e in t] == [3, 2, 1] and [e[\"z0\"] for e in t] == [3, 1, 0]
assert t[2][\"basis\"] == [\"z2\", \"z1\"] and t[2][\"values\"] == [1, 1] and t[1][\"ratios\"] == [2, 3]
assert all(e[\"method\"] == \"lemke\" and e[\"kind\"] == \"pivot\" and e[\"iteration\"] == k + 1 for k, e in enumerate(t))
print(\"well-formed\")'"
check "trace pgs json" 0 '^well-formed *$' -- bash -c "'$perp' solve '$data/lcp_deudeu.dat' --method pgs --trace --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d[\"trace\"]
assert len(t) == d[\"iterations\"] + 1 and [e[\"iteration\"] for e in t] == list(range(len(t)))
assert all(e[\"kind\"] == \"sweep\" and set(e) >= {\"residual\", \"entered\", \"left\", \"active_size\"} for e in t)
assert abs(t[-1][\"residual\"] - d[\"residual\"]) <= 1e-12 and t[0][\"residual\"] > t[-1][\"residual\"]
print(\"well-formed\")'"
check "trace newton json" 0 '^well-formed *$' -- bash -c "'$perp' solve '$data/lcp_deudeu.dat' --method newton-min --trace --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d[\"trace\"]
assert len(t) == d[\"iterations\"] + 1 and t[0][\"iteration\"] == 0 and \"step\" not in t[0]
assert all(e[\"kind\"] == \"newton-step\" and \"merit\" in e and \"kinks\" in e for e in t)
assert all(0 < e[\"step\"] <= 1 and e[\"direction\"] in (\"newton\", \"levenberg-marquardt\", \"gradient\") for e in t[1:])
print(\"well-formed\")'"
check "trace text newton" 0 'newton-fb step 0: merit [0-9.e+-]+, active [0-9]+ \(\+\{.*residual' -- "$perp" solve "$data/lcp_deudeu.dat" --method newton-fb --trace
check "no trace key without --trace" 0 '^absent *$' -- bash -c "'$perp' solve '$tmp/chapter.json' --method lemke --json | python3 -c '
import json, sys
print(\"absent\" if \"trace\" not in json.load(sys.stdin) else \"present\")'"
check "trace murty" 0 'murty pivot 1: basic z 1 \(\+\{0\} -\{\}\), residual 1' -- "$perp" solve "$tmp/chapter.json" --method murty --trace

# --warm-start, --covering, --friction-passes (issue 16), each validated.
printf '[1.3333333333333333, 2.3333333333333335]\n' >"$tmp/warm.txt"
printf '1 x\n' >"$tmp/bad_numbers.txt"
printf '1, 1, 1\n' >"$tmp/short.txt"
printf '1 0\n' >"$tmp/zero_d.txt"
printf '1 2\n' >"$tmp/cover.txt"
check "path solves deudeu" 0 'path: solved' -- "$perp" solve "$data/lcp_deudeu.dat" --method path
check "warm start at the solution" 0 'solved in 0 iterations' -- "$perp" solve "$data/lcp_deudeu.dat" --method newton-fb --warm-start "$tmp/warm.txt"
check "warm start not a number" 2 "--warm-start: entry 1 of .* is not a finite number: 'x'" -- "$perp" solve "$data/lcp_deudeu.dat" --warm-start "$tmp/bad_numbers.txt"
check "warm start wrong size" 2 'initial_guess: expected size 2, got 3' -- "$perp" solve "$data/lcp_deudeu.dat" --warm-start "$tmp/short.txt"
check "warm start missing file" 2 "--warm-start: cannot open" -- "$perp" solve "$data/lcp_deudeu.dat" --warm-start "$tmp/none.txt"
# Issue 38: /dev/zero as a warm start was read whole (exit 3, later killed for memory): now a sentence.
check "warm start /dev/zero" 2 "--warm-start: '/dev/zero' holds a NUL byte at offset 0: expected a text file of numbers" -- \
  timeout 20 "$perp" solve "$data/lcp_deudeu.dat" --warm-start /dev/zero
check "warm start directory" 2 "--warm-start: cannot open '.*': it is a directory" -- "$perp" solve "$data/lcp_deudeu.dat" --warm-start "$tmp"
check "covering vector used" 0 'lemke: solved' -- "$perp" solve "$data/lcp_deudeu.dat" --method lemke --covering "$tmp/cover.txt"
check "covering vector zero" 2 'lemke.covering_vector\[1\] must be > 0' -- "$perp" solve "$data/lcp_deudeu.dat" --method lemke --covering "$tmp/zero_d.txt"
check "friction passes 0" 2 'max_friction_passes must be >= 1, got 0' -- "$perp" solve "$data/lcp_deudeu.dat" --friction-passes 0

# Bimatrix games by Lemke–Howson: matching pennies has the one equilibrium (½, ½), (½, ½), reached
# from all four labels; the coordination game A = B = I from label 0 ends at (e_0, e_0) with payoffs 1.
echo '{"type": "bimatrix", "A": [[1, -1], [-1, 1]], "B": [[-1, 1], [1, -1]]}' > "$tmp/pennies.json"
check "bimatrix json" 0 '"method": "lemke-howson".*"status": "solved"' -- "$perp" solve "$tmp/pennies.json" --json
check "bimatrix equilibrium" 0 'x = \[0\.5, 0\.5\].*y = \[0\.5, 0\.5\]' -- "$perp" solve "$tmp/pennies.json"
check "bimatrix --all" 0 '1 distinct equilibria from the 4 starting labels|1 equilibrium from the 4 starting labels' -- "$perp" solve "$tmp/pennies.json" --all
check "bimatrix --all labels" 0 '"labels": \[\s*0,\s*1,\s*2,\s*3\s*\]' -- "$perp" solve "$tmp/pennies.json" --all --json
echo '{"type": "bimatrix", "A": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "B": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}' > "$tmp/coordination.json"
check "bimatrix label 0" 0 'x = \[1, 0, 0\].*y = \[1, 0, 0\].*payoffs 1, 1' -- "$perp" solve "$tmp/coordination.json" --label 0
check "bimatrix label range" 2 '--label 6 is out of range: a 3×3 game has labels 0 … 5' -- "$perp" solve "$tmp/coordination.json" --label 6
check "bimatrix method" 2 'solved by Lemke–Howson' -- "$perp" solve "$tmp/coordination.json" --method lemke
echo '{"type": "bimatrix", "A": [[1, 2], [3, 4]], "B": [[1, 2], [3]]}' > "$tmp/ragged_game.json"
check "bimatrix ragged" 2 '"B" row 1 has 1 entries, row 0 has 2' -- "$perp" solve "$tmp/ragged_game.json"
echo '{"type": "bimatrix", "A": [[1, 2]]}' > "$tmp/half_game.json"
check "bimatrix missing B" 2 '"B" is missing' -- "$perp" solve "$tmp/half_game.json"
check "label on an LCP" 2 '--label applies to a bimatrix game' -- "$perp" solve "$tmp/chapter.json" --label 1

# 3D scenes ("dimension": 3, docs/contact3d.md): the tower stands with every step solved, the issue's
# columns, the refusals named.
check "simulate tower3d" 0 'tower3d\.json: 600 steps .* 10 bodies \(3D\).*wrote .*trajectory\.csv' -- "$perp" simulate "$scenes/tower3d.json" --out "$tmp/tower3d"
check "tower3d trajectory columns" 0 '^t,box0\.x,box0\.y,box0\.z,box0\.qw,box0\.qx,box0\.qy,box0\.qz,box0\.vx,box0\.vy,box0\.vz,box0\.wx,box0\.wy,box0\.wz,box1\.x' -- head -1 "$tmp/tower3d/trajectory.csv"
check "tower3d steps all solved" 0 '^600 600 $' -- awk -F, 'NR > 1 { n++; if ($4 == "solved") s++ } END { print n, s }' "$tmp/tower3d/steps.csv"
check "tower3d standing" 0 '^0 $' -- awk -F, 'NR == 601 { bad = 0; for (i = 0; i < 10; i++) { z = $(4 + 13 * i); if (z < 0.25 + 0.5 * i - 1e-3 || z > 0.25 + 0.5 * i + 1e-3) bad++ } print bad }' "$tmp/tower3d/trajectory.csv"
sed 's/"duration": 10.0/"duration": 0.05/' "$scenes/tower3d.json" > "$tmp/tower3d_short.json"
check "3d --dump of the convex model refused" 2 "--dump writes the steps' frictional contact problem, which only the Coulomb model poses; this scene's friction_model is anitescu-potra" -- \
  bash -c "sed 's/\"friction\": 0.5,/\"friction\": 0.5, \"friction_model\": \"anitescu-potra\",/' '$tmp/tower3d_short.json' > '$tmp/tower3d_convex.json' && '$perp' simulate '$tmp/tower3d_convex.json' --out '$tmp/x3' --dump '$tmp/x3dump'"
# A 3D run stopped by SIGTERM (the pyramid's first step takes ~1 s): --out as it was, nothing partial.
"$perp" simulate "$tmp/tower3d_short.json" --out "$tmp/term3d" >/dev/null
stopped_by_sigterm "a 3D simulate" "$tmp/term3d" 1 "$tmp/term3d-dump" -- "$scenes/pyramid3d.json"
check "3d --solver pgs refused" 2 "method 'pgs' does not solve a frictional contact problem" -- "$perp" simulate "$scenes/tower3d.json" --out "$tmp/x3" --solver pgs
sed 's/"position": \[0.0, 0.0, 0.25\]/"position": [0.0, 0.0, 0.25], "orientation": [1, 0, 0, 1]/' "$scenes/tower3d.json" > "$tmp/badquat.json"
check "3d bad quaternion" 2 'bodies\[0\]\.orientation must be a unit quaternion \(norm within 1e-6 of 1\), got norm 1\.41' -- "$perp" simulate "$tmp/badquat.json" --out "$tmp/x3"
check "3d refused wrote nothing" 0 '^0 *$' -- bash -c "ls -A '$tmp/x3' 2>/dev/null | wc -l"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

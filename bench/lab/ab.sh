#!/usr/bin/env bash
# A/B/A of a kernel patch on the GPU machine, in one process sequence: builds gpuops with the
# patch (checking the ops it touches first), times `gpuops perf`, reverses the patch and times
# again, re-applies it and times a third time, then pairs the rows: per row new / old (the mean
# of the two "new" runs over the one "old"), their geomean, median, min and max, and how far the
# two "new" runs lie apart (the run-to-run noise the ratio must beat). Leaves the tree as found.
#   bash bench/lab/ab.sh PATCH CHECK_OP_REGEX PERF_ARGS...
#   e.g. bash bench/lab/ab.sh bench/lab/fp8-tma-activations.patch 'fp8\.wg_.*' \
#          --op 'fp8\.wg_m64_n64_split2' --shapes batch --only 'qkv|o|down' --iterations 20 --no-read
# Needs build/cuda configured (the guide's cmake --preset cuda line); writes $OUT/ab_{new1,old,
# new2}.txt (perf's streamed rows, so a timeout keeps what ran) and prints the pairing.
set -uo pipefail
[ $# -ge 3 ] || { sed -n 2,10p "$0"; exit 2; }
PATCH=$1 CHECK=$2; shift 2
OUT=${OUT:-/tmp/ab_out}; mkdir -p "$OUT"
G=build/cuda/tools/gpuops/gpuops
export GPUOPS_CUBLASLT=${GPUOPS_CUBLASLT:-$(find /usr/local/cuda*/ -name 'libcublasLt.so.1[23]*' 2>/dev/null | head -1)}
applied=0
apply() { patch -p1 --forward --quiet < "$PATCH" && applied=1; }
reverse() { patch -R -p1 --quiet < "$PATCH" && applied=0; }
trap '[ $applied = 1 ] && reverse' EXIT
build() { timeout 300 cmake --build build/cuda --target gpuops > "$OUT/build.txt" 2>&1 || { tail -30 "$OUT/build.txt"; exit 1; }; }
timed() { timeout 240 $G perf "$@" > "$OUT/ab_$label.txt" 2>&1; echo "perf $label rc=$?"; }
apply || { echo "ab: $PATCH does not apply"; exit 1; }
build
timeout 60 $G check --backend cuda --op "$CHECK" > "$OUT/check.txt" 2>&1
echo "check $CHECK: $(tail -n 1 "$OUT/check.txt")"
grep -q ' 0 failed' "$OUT/check.txt" || { grep FAIL "$OUT/check.txt" | head; exit 1; }
label=new1; timed "$@"
reverse; build; label=old; timed "$@"
apply; build; label=new2; timed "$@"
python3 - "$OUT" <<'PY'
import math, statistics, sys
def rows(label):  # "[i/n] shape M=.. N=.. K=.. variant ours T us ..." -> {(i, shape, m, variant): T}
    out = {}
    for line in open(f"{sys.argv[1]}/ab_{label}.txt"):
        p = line.split()
        if line.startswith("[") and len(p) > 7 and p[6] == "ours" and p[7] != "-":
            out[(p[0], p[1], p[2], p[5])] = float(p[7])
    return out
new1, old, new2 = rows("new1"), rows("old"), rows("new2")
ratios, drift = [], []
for key in new1:
    if key in old and key in new2:
        r = (new1[key] + new2[key]) / 2 / old[key]
        ratios.append(r); drift.append(new2[key] / new1[key])
        print(f"{' '.join(key[1:]):44s} old {old[key]:8.2f}  new {new1[key]:8.2f} {new2[key]:8.2f}  new/old {r:.3f}")
if ratios:
    g = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"{len(ratios)} rows: new/old geomean {g:.3f}, median {statistics.median(ratios):.3f}, "
          f"min {min(ratios):.3f}, max {max(ratios):.3f}; new2/new1 {min(drift):.3f}-{max(drift):.3f}")
PY

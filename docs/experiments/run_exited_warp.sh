#!/bin/bash
# Runs exited_warp_collectives.cu on a GPU machine: each kernel plainly (20 s limit: longer
# is a hang), then under compute-sanitizer synccheck and racecheck (60 s limit each).
# Usage: bash docs/experiments/run_exited_warp.sh OUTDIR
set -u
out=${1:-/tmp/exited_warp}
mkdir -p "$out"
here=$(dirname "$0")
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
bin=$(mktemp -d)/exited_warp
nvcc -std=c++17 -arch=sm_90 -o "$bin" "$here/exited_warp_collectives.cu" || exit 1
for k in $("$bin" list); do
  echo "== $k"
  timeout 20 "$bin" "$k"; rc=$?
  [ $rc -eq 124 ] && echo "$k HANG (killed after 20 s)"
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$k rc=$rc"
  for tool in synccheck racecheck; do
    log=$(timeout 60 compute-sanitizer --tool $tool "$bin" "$k" 2>&1); rc=$?
    printf '== %s %s (rc=%s)\n%s\n' "$k" "$tool" "$rc" "$log" >> "$out/sanitizer.txt"
    [ $rc -eq 124 ] && echo "$k $tool: HANG (killed after 60 s)"
    echo "$k $tool: $(echo "$log" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done

#!/bin/bash
# Runs exited_stores.cu on a GPU machine: each kernel 200 times per exit count (20 s limit),
# then once per exit count under compute-sanitizer synccheck and racecheck (60 s limit each).
# Usage: bash docs/experiments/run_exited_stores.sh OUTDIR
set -u
out=${1:-/tmp/exited_stores}
mkdir -p "$out"
here=$(dirname "$0")
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
bin=$(mktemp -d)/exited_stores
nvcc -std=c++17 -arch=sm_90 -o "$bin" "$here/exited_stores.cu" || exit 1
for k in $("$bin" list); do
  echo "== $k"
  timeout 20 "$bin" "$k"; rc=$?
  [ $rc -ne 0 ] && echo "$k rc=$rc"
  for tool in synccheck racecheck; do
    log=$(timeout 60 compute-sanitizer --tool $tool "$bin" "$k" once 2>&1); rc=$?
    printf '== %s %s (rc=%s)\n%s\n' "$k" "$tool" "$rc" "$log" >> "$out/sanitizer.txt"
    echo "$k $tool: $(echo "$log" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done

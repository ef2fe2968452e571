#!/usr/bin/env bash
# Runs carry_probe_passes over buffer placements: per-kernel ncu durations and event medians, under $OUT.
set -u
mkdir -p /tmp/inc && ln -sfn "$PWD" /tmp/inc/carry
nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -I/tmp/inc -Ivalidate validate/tune/probe_passes.cu -o /tmp/pp || exit 1
: >"$OUT/passes.txt"
echo "$PASS_CONFIGS" | tr ';' '\n' | while read -r args; do
  [ -z "$args" ] && continue
  echo "== $args" >>"$OUT/passes.txt"
  /tmp/pp $args 10 >>"$OUT/passes.txt" 2>&1
  ncu --clock-control none --metrics gpu__time_duration.sum --csv /tmp/pp $args 1 2>/dev/null |
    awk -F'","' '/gpu__time_duration/ {k=$5; sub(/\(.*/,"",k); sub(/void carry::/,"",k); printf "%s %s | ", substr(k,1,22), $NF} END {print ""}' >>"$OUT/passes.txt"
done

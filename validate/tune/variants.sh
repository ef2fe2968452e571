#!/usr/bin/env bash
# Builds carry_probe_outputs once per experimental knob set and runs the variants in alternating rounds.
# VARIANTS="name:flags ..." (flags joined by ','), SIZES="28:4:7 26:4:9" (log2:buffers:reps), ROUNDS=2
set -u
mkdir -p /tmp/inc && ln -sfn "$PWD" /tmp/inc/carry
for v in $VARIANTS; do
  n=${v%%:*} f=${v#*:}
  nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -I/tmp/inc -Ivalidate ${f//,/ } validate/probe/probe_outputs.cu -o /tmp/po_$n &
done
wait
: >"$OUT/variants.txt"
for r in $(seq "${ROUNDS:-2}"); do
  for s in ${SIZES:-28:4:7 26:4:9 24:4:15}; do
    IFS=: read -r lg nb reps <<<"$s"
    for v in $VARIANTS; do
      n=${v%%:*}
      /tmp/po_$n $((1 << lg)) "$nb" "$reps" | sed "s/^/$n 2^$lg r$r /" >>"$OUT/variants.txt"
    done
  done
done

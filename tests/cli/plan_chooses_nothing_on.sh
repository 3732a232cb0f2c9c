#!/bin/sh
# plan_chooses_nothing_on.sh AXIS KOPT EVIDENCE_DIR OUT: runs `kopt plan` and fails when it
# chooses any method on AXIS (compute, memory, latency) or when kopt plan itself fails.
axis=$1 kopt=$2 dir=$3 out=$4
plan=$("$kopt" plan "$dir" --out "$out") || { echo "kopt plan failed"; exit 1; }
echo "$plan"
if echo "$plan" | grep -q "^ *+ $axis\."; then echo "CHOSE a $axis method"; exit 1; fi
echo "NO $axis METHOD"

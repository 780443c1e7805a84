#!/bin/sh
# Progress lines reach a pipe as they are printed: the first line of a solve
# that runs for over a second must arrive well before the program ends. With
# stdout fully buffered (the C library's default for a pipe) everything came
# at exit, together. The solve stops at --maxit, so it must exit with 3.
#   progress_is_flushed.sh STRATA WORK_DIR
strata=$1
work=$2
mkdir -p "$work"
status_file=$work/status
now() { date +%s%N; }
{
  "$strata" solve poisson3d --n 32 --host --precond none --tol 1e-300 --maxit 3000 \
    --solver.stagnation_window 100000 --print-every 500
  echo $? > "$status_file"
} |
  {
    IFS= read -r first
    t_first=$(now)
    cat >/dev/null
    t_end=$(now)
    gap_ms=$(( (t_end - t_first) / 1000000 ))
    echo "first line: $first"
    echo "it came ${gap_ms} ms before the end of the output"
    [ "$gap_ms" -ge 300 ]
  } || exit 1
status=$(cat "$status_file")
echo "exit status $status (expected 3: stopped at --maxit)"
[ "$status" = 3 ]

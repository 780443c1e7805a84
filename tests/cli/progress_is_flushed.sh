#!/bin/sh
# Progress lines reach a pipe as they are printed: the first line of a solve
# that runs for over a second must arrive well before the program ends. With
# stdout fully buffered (the C library's default for a pipe) everything came
# at exit, together.
#   progress_is_flushed.sh STRATA
strata=$1
now() { date +%s%N; }
"$strata" solve poisson3d --n 32 --host --precond none --tol 1e-300 --maxit 3000 \
    --solver.stagnation_window 100000 --print-every 500 |
  {
    IFS= read -r first
    t_first=$(now)
    cat >/dev/null
    t_end=$(now)
    gap_ms=$(( (t_end - t_first) / 1000000 ))
    echo "first line: $first"
    echo "it came ${gap_ms} ms before the end of the output"
    [ "$gap_ms" -ge 300 ]
  }

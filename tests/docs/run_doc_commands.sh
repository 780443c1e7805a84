#!/bin/sh
# Runs every ```sh block of a Markdown file, in order, as one script in an
# empty folder with the built strata program first on PATH; any command
# that fails fails the test (sh -e: a command whose failure is the point is
# written `cmd || test $? -eq 3` in the docs). Other fences (```python,
# ```cpp, ```c, ...) are not run.
#   run_doc_commands.sh DOC.md BIN_DIR WORK_DIR
set -eu
doc=$1
bin=$(cd "$2" && pwd)
work=$3
rm -rf "$work"
mkdir -p "$work"
awk -v doc="$doc" '
  /^```sh[ \t]*$/ { n++; print "echo \"--- " doc ", sh block " n "\""; on = 1; next }
  /^```/ { on = 0; next }
  on { print }
  END { if (n == 0) exit 1 }' "$doc" > "$work/commands.sh" || {
  echo "$doc: no sh block to run" >&2
  exit 1
}
cd "$work"
PATH="$bin:$PATH" sh -ex ./commands.sh

#!/bin/sh
# Checks that no tracked file labels a thing by when it was made: no numbered
# work periods and no revision or period suffixes on names (the pattern
# below). Things are named by what they are; history belongs in git log.
# Disassembly (registers such as -R9) and fuzz corpora (random bytes) are not
# prose and are left out. Exits 77 (CTest: skipped), saying why, outside a
# git work tree.
#
#   scripts/check-labels.sh [REPOSITORY]
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "skipped: $root is not a git work tree (the check reads the tracked files)"
  exit 77
fi
pattern='\b[Ss]essions? ?[0-9]+\b|[-/](s|r|round)[0-9]{1,2}\b|\b[Rr]ound [0-9]+\b'
hits=$(git grep -nIE "$pattern" -- . ':!*.nvdisasm.txt' ':!validate/fuzz/corpus' ':!scripts/check-labels.sh' || true)
if [ -n "$hits" ]; then
  printf '%s\n' "$hits"
  echo "labels: the lines above name a work period or a revision; name the thing by what it is (history goes in git log)"
  exit 1
fi
echo "labels: $(git ls-files | wc -l) tracked files, none labelled by a work period or revision"

#!/bin/sh
# Checks that every hand-written C++ and CUDA source is laid out as
# .clang-format says, with clang-format 14 (Debian 12's: other versions lay
# some constructs out otherwise). Exits 77 (CTest: skipped), saying why, where
# clang-format 14 is not installed (scripts/setup.sh --tests installs it).
#
#   scripts/check-format.sh [REPOSITORY]       report every file out of format
#   clang-format -i FILE...                    what puts a file in format
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

tool=""
for c in clang-format-14 clang-format; do
  if command -v "$c" >/dev/null 2>&1; then tool=$c; break; fi
done
if [ -z "$tool" ]; then
  echo "skipped: clang-format is not installed (scripts/setup.sh --tests installs it)"
  exit 77
fi
version=$("$tool" --version | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
if [ "$version" != "14" ]; then
  echo "skipped: the tree is laid out by clang-format 14; $tool is version ${version:-unknown}"
  exit 77
fi

# The hand-written sources: tracked ones where this is a git work tree,
# else every one under the layers' folders. Measured datasets and experiments
# (validate/data, validate/experiments) are kept as they were run.
list=$(mktemp)
trap 'rm -f "$list"' EXIT
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -- '*.cpp' '*.hpp' '*.cu' '*.cuh'
else
  find model sim kernels validate reports cli \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) \
    -not -path '*/node_modules/*'
fi | grep -v '^validate/data/\|^validate/experiments/' > "$list"

count=$(wc -l < "$list")
if xargs "$tool" --style=file --dry-run --Werror < "$list"; then
  echo "format: $count files as .clang-format says ($tool $version)"
else
  echo "format: files above are not as .clang-format says; clang-format -i FILE... puts them right" >&2
  exit 1
fi

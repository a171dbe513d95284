#!/usr/bin/env bash
# Checks every tracked C/C++ file of ours against .clang-format (LLVM style)
# with clang-format 22, the version that scripts/packages.sh installs for
# CI and developers alike: another version formats some constructs
# differently. Prints each difference and the names of the files that
# differ, and fails if any does. clang-format-22 -i FILE formats a file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLANG_FORMAT=/usr/lib/llvm-22/bin/clang-format
if [ ! -x "$CLANG_FORMAT" ]; then
  echo "$CLANG_FORMAT not found: install clang-format-22" >&2
  exit 2
fi

# Tracked files that exist in the work tree. Nothing generated or
# third-party is tracked: TableGen's .inc files are written into build/.
files=()
while IFS= read -r -d '' file; do
  [ -f "$file" ] && files+=("$file")
done < <(git ls-files -z -- '*.c' '*.cpp' '*.h' '*.cu')

differing=()
for file in "${files[@]}"; do
  "$CLANG_FORMAT" --dry-run -Werror "$file" || differing+=("$file")
done

if [ ${#differing[@]} -gt 0 ]; then
  echo "${#differing[@]} of ${#files[@]} C/C++ files differ from" \
    "clang-format 22's output:" >&2
  printf '  %s\n' "${differing[@]}" >&2
  exit 1
fi
echo "${#files[@]} C/C++ files formatted as clang-format 22 formats them"

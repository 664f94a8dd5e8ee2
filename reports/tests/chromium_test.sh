#!/bin/sh
# Opens the report in headless Chromium and checks that every Vega-Lite chart
# rendered an SVG (the page counts them in body[data-rendered]) and that no
# error reached the console (the page counts console.error and uncaught
# errors in body[data-errors]); saves a screenshot. Exit 77 (skipped) when
# Chromium is not installed (scripts/setup.sh --tests installs it).
# usage: chromium_test.sh REPORT_DIR SCREENSHOT.png
set -eu
dir=$(cd "$1" && pwd)
shot=$2
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "SKIP: no chromium on PATH (scripts/setup.sh --tests installs Debian's chromium)"
  exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -s "$dir/index.html" ] || fail "$dir/index.html missing: the report test writes it"
profile=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$profile" "$log"' EXIT
flags="--headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars --user-data-dir=$profile
       --virtual-time-budget=30000 --run-all-compositor-stages-before-draw --enable-logging=stderr --v=0"
dom=$(timeout 180 "$browser" $flags --dump-dom "file://$dir/index.html" 2>"$log") || { cat "$log" >&2; fail "chromium exited $?"; }
# The body element the page's script marked (the inlined libraries hold "<body>" strings of their own).
body=$(echo "$dom" | grep -o '<body [^>]*data-charts[^>]*>' | head -n 1)
attr() { echo "$body" | sed -n "s/.* $1=\"\([0-9]*\)\".*/\1/p"; }
charts=$(attr data-charts)
rendered=$(attr data-rendered)
errors=$(attr data-errors)
echo "charts: ${charts:-?}, rendered: ${rendered:-?}, console errors: ${errors:-?}"
[ -n "$charts" ] && [ "$charts" -gt 0 ] || { cat "$log" >&2; fail "the page's scripts did not run (no data-charts)"; }
if [ "${errors:-1}" != 0 ]; then
  echo "$dom" | sed -n '/<pre id="agpu-errors">/,/<\/pre>/p' >&2
  fail "errors on the console"
fi
if grep -q "Uncaught" "$log"; then grep "CONSOLE" "$log" >&2; fail "uncaught error in chromium's log"; fi
[ "$rendered" = "$charts" ] || fail "$rendered of $charts charts rendered an SVG"
rm -f "$shot"
timeout 180 "$browser" $flags --window-size=1400,9000 --screenshot="$shot" "file://$dir/index.html" 2>>"$log" >/dev/null ||
  { cat "$log" >&2; fail "screenshot: chromium exited $?"; }
[ -s "$shot" ] || fail "no screenshot at $shot"
echo "ok: every chart rendered; screenshot $shot"

#!/bin/bash
# report.html as a browser renders it: headless Chromium (Debian package `chromium`) loads the
# report of a short campaign, its DOM must hold the op x law x dtype matrix and the three plots
# (error distribution, coverage, time per law) as SVG, and a screenshot is taken
# (WORK_DIR/report.png). Exit 77 (skipped) when Chromium is not installed.
# Usage: render_html_test.sh GRADCONF WORK_DIR
set -euo pipefail
gradconf=$1
work=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: chromium not installed"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
"$gradconf" check --budget 5 --no-progress --op nsa_compress multi_scale_deformable_attention \
  --out "$work/report" > "$work/check.txt"
page="file://$(realpath "$work/report/report.html")"
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
       --user-data-dir="$work/profile")
"$browser" "${flags[@]}" --dump-dom "$page" > "$work/dom.html" 2> "$work/chromium.log"
for id in matrix error-plots margin-plots coverage-plots time-plot traceability errata; do
  grep -q "id=\"$id\"" "$work/dom.html" || { echo "rendered DOM has no #$id"; exit 1; }
done
svgs=$(grep -o "<svg" "$work/dom.html" | wc -l)
[ "$svgs" -ge 5 ] || { echo "rendered DOM has $svgs SVG plots, expected at least 5"; exit 1; }
grep -q 'class="PASSED"' "$work/dom.html" || { echo "the matrix has no PASSED cell"; exit 1; }
"$browser" "${flags[@]}" --window-size=1400,2600 --screenshot="$work/report.png" "$page" \
  2>> "$work/chromium.log"
[ "$(stat -c %s "$work/report.png")" -gt 20000 ] || { echo "screenshot is (nearly) empty"; exit 1; }
echo "report.html renders in $(basename "$browser"): matrix, $svgs SVG plots; screenshot $work/report.png"

#!/usr/bin/env bash
# The main job: installs the dependencies, builds, and runs demo tournaments
# among the bundled bots, then verifies every record they wrote:
#   - Quäsenbö: a round robin of C++ random, C++ heuristic and Python random;
#   - Pesten, Quodlibet, Quabble: each game's bot against the random bot.
set -euo pipefail
cd "$(dirname "$0")/.."
# As root, arena runs each bot sandboxed as an unprivileged uid, who must be
# able to enter every folder above the checkout (ci/build.sh opens the
# checkout itself). Say so now rather than after the install and the build:
# a clone in root's home (0700) is the usual case.
if [ "$(id -u)" -eq 0 ]; then
  d="$(dirname "$PWD")"
  while [ "$d" != / ]; do
    if [ -z "$(find "$d" -maxdepth 0 -perm -o+x)" ]; then
      echo "ci/demo.sh: the bots run sandboxed as an unprivileged user, who may not" \
        "enter $d (on the way to $PWD); let others search it (chmod o+x $d)" \
        "or clone the repository elsewhere (e.g. under /srv or /opt)" >&2
      exit 2
    fi
    d="$(dirname "$d")"
  done
fi
# Only what the demo needs: no test packages, and only the binaries it runs.
bash ci/install_deps.sh demo
TESTS=OFF TARGETS="arena random_bot quasenbo_bot pesten_bot quodlibet_bot quabble_bot python_bot" \
  bash ci/build.sh
GAMES="${GAMES:-300}"
OUT="${RECORDS:-records/demo}"
rm -rf "$OUT"
B=build/bin
$B/arena tournament --game quasenbo \
  --bot random=$B/random_bot --bot heuristic=$B/quasenbo_bot --bot python=$B/python_random_bot \
  --games "$GAMES" --jobs 2 --records "$OUT/quasenbo"
$B/arena tournament --game pesten --seats 4 \
  --bot pesten_bot=$B/pesten_bot --bot random=$B/random_bot \
  --games 28 --jobs 2 --records "$OUT/pesten"
$B/arena tournament --game quodlibet --option kingdoms=1 \
  --bot quodlibet_bot=$B/quodlibet_bot --bot random=$B/random_bot \
  --games 14 --jobs 2 --records "$OUT/quodlibet"
$B/arena tournament --game quabble --seats 4 \
  --bot quabble_bot=$B/quabble_bot --bot random=$B/random_bot \
  --games 56 --jobs 2 --records "$OUT/quabble"
for game in quasenbo pesten quodlibet quabble; do
  $B/arena verify "$OUT/$game"
done

#!/usr/bin/env bash
# The README's first command: install every dependency (Debian 12), build
# build/porta, and run a real example that shows confinement.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/deps.txt)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# The test suite's npm install (netlab/npm-install) needs an npm: Debian's
# only when there is none, as scripts/test.sh does, so a host with another
# Node.js (nodesource's nodejs ships its own npm) keeps its own.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ "${#missing[@]}" -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
exec scripts/demo.sh build/porta

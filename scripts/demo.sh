#!/usr/bin/env bash
# A real example of what porta refuses, with the messages a user sees.
# Usage: scripts/demo.sh [PATH-TO-PORTA]
set -uo pipefail
porta=$(realpath "${1:-build/porta}")
root_opt=()
[ "$(id -u)" -eq 0 ] && root_opt=(--allow-root)

demo=$(mktemp -d "$HOME/porta-demo.XXXXXX")
trap 'kill "$server" 2>/dev/null; rm -rf "$demo"' EXIT
mkdir -p "$demo/workspace" "$demo/elsewhere" "$demo/home/.ssh"
echo "MUST-NOT-LEAK fake key" > "$demo/home/.ssh/id_ed25519"

# Run from the demo directory: a working directory under the host's /tmp
# (where a clone may live) is not visible inside the private /tmp.
cd "$demo" || exit 1

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

say "porta run -v workspace -- sh -c 'echo ok > workspace/inside; echo x > elsewhere/outside'"
"$porta" run "${root_opt[@]}" -v "$demo/workspace" -- 2>&1 \
	sh -c "echo ok > '$demo/workspace/inside' && echo 'wrote inside the mount'; echo x > '$demo/elsewhere/outside'"
echo "exit $?; on the host: $(ls "$demo/workspace") written, elsewhere/ holds: [$(ls "$demo/elsewhere")]"

say "HOME=home porta run -- cat home/.ssh/id_ed25519   (the key exists on the host)"
HOME="$demo/home" "$porta" run "${root_opt[@]}" -- cat "$demo/home/.ssh/id_ed25519" 2>&1
echo "exit $?"

python3 -m http.server --bind 127.0.0.1 0 >"$demo/server.log" 2>&1 &
server=$!
port=""
for _ in $(seq 50); do
	port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$demo/server.log" | head -1)
	[ -n "$port" ] && break
	sleep 0.1
done
say "curl http://127.0.0.1:$port/   (without porta: a server on the host's loopback answers)"
curl -s -o /dev/null -w 'HTTP %{http_code}\n' "http://127.0.0.1:$port/"
say "porta run --no-net -- curl http://127.0.0.1:$port/"
"$porta" run "${root_opt[@]}" --no-net -- curl -sS -o /dev/null "http://127.0.0.1:$port/" 2>&1
echo "exit $?"
exit 0

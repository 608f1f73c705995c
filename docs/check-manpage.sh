#!/bin/sh
# docs/check-manpage.sh PORTA [MANPAGE]: check that every long option `PORTA help`
# prints appears in the man page (default: docs/porta.1 next to this script).
# Exit 0 when all do; exit 1 listing the missing ones; exit 2 on a usage error.
# In roff a hyphen is written \- (or plain -), so the page is searched with
# its escapes undone.
set -u

porta="${1:-}"
page="${2:-$(dirname "$0")/porta.1}"
if [ -z "$porta" ] || [ ! -x "$porta" ] || [ ! -r "$page" ]; then
	echo "usage: docs/check-manpage.sh PORTA_BINARY [MANPAGE]" >&2
	exit 2
fi

help="$("$porta" help)" || { echo "check-manpage: '$porta help' failed" >&2; exit 2; }
opts="$(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)"
if [ -z "$opts" ]; then
	echo "check-manpage: found no long options in '$porta help'" >&2
	exit 2
fi
text="$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page")"

missing=""
for opt in $opts; do
	# Whole option only: --json must not be satisfied by --jsonfoo.
	printf '%s\n' "$text" | grep -qE -- "(^|[^a-z0-9-])$opt([^a-z0-9-]|\$)" ||
		missing="$missing $opt"
done
if [ -n "$missing" ]; then
	echo "check-manpage: in '$porta help' but not in $page:" >&2
	for opt in $missing; do echo "  $opt" >&2; done
	exit 1
fi
echo "check-manpage: all $(printf '%s\n' "$opts" | wc -l) long options of '$porta help' are in $page"

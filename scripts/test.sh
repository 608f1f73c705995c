#!/usr/bin/env bash
# scripts/test.sh: build porta and run every test, the way CI does.
#
#   scripts/test.sh            (as root on a fresh Debian 12 machine, or as a developer)
#
# Phases, each reported on one line and summed up at the end:
#   deps        install the packages of scripts/deps.txt that are missing, and
#               Debian's npm when no npm is on PATH (root only)
#   main        -Werror build in build/, ctest as the caller (root in CI)
#   user        the same tree copied to a directory owned by an unprivileged
#               user (porta-ci), built and tested as that user (root only)
#   asan        -DPORTA_SANITIZE=ON build in build-asan/, ctest as the caller
#   asan-user   the sanitizer build and ctest as the unprivileged user
# A developer without root gets the main and asan phases as themselves and the user
# phases skipped with a note.
#
# Environment knobs: PORTA_CI_USER (default porta-ci), PORTA_TEST_JOBS (build
# and ctest parallelism, default nproc), PORTA_SKIP_ASAN=1, PORTA_SKIP_USER=1.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO" || exit 1

CI_USER="${PORTA_CI_USER:-porta-ci}"
JOBS="${PORTA_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}"
LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/porta-test.XXXXXX")"
chmod 755 "$LOGDIR"
IS_ROOT=0
[ "$(id -u)" -eq 0 ] && IS_ROOT=1

# A clean PATH: a pyenv/virtualenv shim under /root must not leak into builds
# run as another user, and the tests use Debian's /usr/bin/python3 anyway.
SYS_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Sanitizers.  LeakSanitizer stops the world with ptrace from a helper thread
# of the process it checks.  That is porta's own supervisor, which is not under
# porta's seccomp filter, so leak checking works there; the sandboxed payloads
# are ordinary programs (probes), never the instrumented porta, and a child of
# porta that fails before execve leaves with _exit(), which runs no leak check.
# Override with PORTA_ASAN_OPTIONS if a host refuses ptrace altogether.
ASAN_OPTS="${PORTA_ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}"
UBSAN_OPTS="print_stacktrace=1:halt_on_error=1"

declare -a PHASE_NAMES=() PHASE_RESULTS=() PHASE_CTEST=()
FAILED=0

say() { printf '\n==> %s\n' "$*"; }

record() { # name result(PASS|FAIL|SKIP) detail
	PHASE_NAMES+=("$1")
	PHASE_RESULTS+=("$2")
	PHASE_CTEST+=("${3:-}")
	printf '==> phase %-10s %s%s\n' "$1" "$2" "${3:+  ($3)}"
	[ "$2" = FAIL ] && FAILED=1
	return 0
}

# Sanitizer reports in a ctest run's full log (Testing/Temporary/LastTest.log).
# criterion counts a test as passed even when LeakSanitizer reported a leak in
# it, so the reports themselves decide; prints the first few, returns 1 if any.
sanitizer_findings() {
	local last="$1/Testing/Temporary/LastTest.log"
	[ -f "$last" ] || return 0
	if grep -qE 'ERROR: (Leak|Address)Sanitizer|runtime error:' "$last"; then
		grep -nE 'ERROR: (Leak|Address)Sanitizer|runtime error:' "$last" | head -5
		return 1
	fi
	return 0
}

# The summary ctest printed in a log ("100% tests passed, 0 tests failed out of 42").
ctest_summary() {
	grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -n 1
}

# ---- deps ------------------------------------------------------------------
deps_list() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$REPO/scripts/deps.txt" | grep -v '^$'; }

phase_deps() {
	local missing=() p
	while read -r p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done < <(deps_list)
	# netlab/npm-install (bench/npm --check) runs npm.  Debian's npm only
	# when there is none: a host with another Node.js (nodesource's nodejs
	# ships its own npm) keeps its own.  Without root, the test skips.
	if ! PATH="$SYS_PATH" command -v npm >/dev/null 2>&1; then
		if [ "$IS_ROOT" -eq 1 ]; then
			missing+=(npm)
		else
			echo "note: no npm: netlab/npm-install will be skipped (as root: apt-get install npm)"
		fi
	fi
	if [ "${#missing[@]}" -eq 0 ]; then
		record deps PASS "all installed"
		return
	fi
	if [ "$IS_ROOT" -ne 1 ]; then
		echo "missing packages: ${missing[*]}"
		echo "install them as root: apt-get install ${missing[*]}"
		record deps FAIL "missing: ${missing[*]}"
		return
	fi
	say "installing: ${missing[*]}"
	if DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null &&
	   DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" </dev/null; then
		record deps PASS "installed ${missing[*]}"
	else
		record deps FAIL "apt-get install failed"
	fi
}

# ---- build and test in one tree ---------------------------------------------
# The suites a phase skips because another phase runs them in full and this
# one would add nothing, so that CI stays well inside its time:
#  - the package is built by scripts/build-deb.sh with a Release build of
#    its own, whatever the phase's build, so package/deb runs once (main, as
#    root: it installs and removes the .deb), and the sanitizer phases leave
#    the package suites out;
#  - integration-degraded/* (the whole integration suite again on a
#    simulated host without user namespaces) runs in main and user; under
#    the sanitizers the degraded paths are still exercised by
#    integration/degraded and integration/hosts;
#  - the escape corpus runs as root and as the user, and under the
#    sanitizers as root; a fourth pass as the user adds no code path.
CTEST_SKIP_USER=(-E '^package/deb$')
CTEST_SKIP_ASAN=(-LE '^package$' -E '^integration-degraded/')
CTEST_SKIP_ASAN_USER=(-LE '^package$' -E '^(integration-degraded/|escapes/)')

# build_and_test NAME SRC BUILD [cmake args...]: runs as the current user;
# CTEST_EXTRA (an array) goes to ctest.
build_and_test() {
	local name="$1" src="$2" build="$3"
	shift 3
	local log="$LOGDIR/$name.log"
	say "$name: configure and build $build"
	if ! cmake -S "$src" -B "$build" -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "$@" ||
	   ! cmake --build "$build" -j "$JOBS"; then
		record "$name" FAIL "build failed"
		return
	fi
	say "$name: ctest in $build as $(id -un)"
	(cd "$build" && ctest --output-on-failure -j "$JOBS" --timeout 1200 "${CTEST_EXTRA[@]}") 2>&1 |
		tee "$log"
	local rc="${PIPESTATUS[0]}"
	local sum
	sum="$(ctest_summary "$log")"
	if ! sanitizer_findings "$build"; then
		record "$name" FAIL "sanitizer reports in $build/Testing/Temporary/LastTest.log"
	elif [ "$rc" -eq 0 ] && [ -n "$sum" ]; then
		record "$name" PASS "$sum"
	else
		record "$name" FAIL "${sum:-ctest exited $rc}"
	fi
}

# ---- the unprivileged user ---------------------------------------------------
user_home() { getent passwd "$CI_USER" | cut -d: -f6; }

ensure_user() {
	if ! id -u "$CI_USER" >/dev/null 2>&1; then
		useradd --create-home --shell /bin/bash "$CI_USER" || return 1
	fi
	local home
	home="$(user_home)"
	[ -d "$home" ] || { mkdir -p "$home" && chown "$CI_USER:" "$home"; } || return 1
	return 0
}

# Copies the tree (tracked plus untracked, non-ignored files) to a directory
# the user owns: the clone may live under /root (0700).
copy_tree_for_user() {
	local dest_root="$1"
	rm -rf "$dest_root"
	install -d -o "$CI_USER" -g "$(id -gn "$CI_USER")" "$dest_root" "$dest_root/porta" || return 1
	if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
			tar --null --ignore-failed-read --files-from=- -cf -) |
			runuser -u "$CI_USER" -- tar -xf - -C "$dest_root/porta" || return 1
	else
		(cd "$REPO" && tar --exclude='./build*' --exclude='./.git' -cf - .) |
			runuser -u "$CI_USER" -- tar -xf - -C "$dest_root/porta" || return 1
	fi
	return 0
}

# as_user NAME BUILD_SUBDIR [cmake args...]: build_and_test in the user's copy
# (CTEST_EXTRA as there).
as_user() {
	local name="$1" sub="$2"
	shift 2
	local home dest
	home="$(user_home)"
	dest="$USER_TREE"
	local log="$LOGDIR/$name.log" rc
	# Only the variables a login would have, plus the sanitizer options.
	# shellcheck disable=SC2016 # the inner script expands its own arguments
	runuser -u "$CI_USER" -- env -i \
		HOME="$home" USER="$CI_USER" LOGNAME="$CI_USER" SHELL=/bin/bash \
		PATH="$SYS_PATH" LANG="${LANG:-C.UTF-8}" TERM="${TERM:-dumb}" CI="${CI:-}" \
		ASAN_OPTIONS="$ASAN_OPTS" UBSAN_OPTIONS="$UBSAN_OPTS" \
		PORTA_TEST_JOBS="$JOBS" PORTA_CTEST_EXTRA="${CTEST_EXTRA[*]}" \
		bash -c '
			set -uo pipefail
			cd "$1/porta" || exit 90
			shift
			cmake -S . -B "$0" -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "$@" &&
				cmake --build "$0" -j "$PORTA_TEST_JOBS" || exit 91
			read -r -a extra <<< "$PORTA_CTEST_EXTRA"
			cd "$0" && ctest --output-on-failure -j "$PORTA_TEST_JOBS" --timeout 1200 "${extra[@]}"
		' "$sub" "$dest" "$@" 2>&1 | tee "$log"
	rc="${PIPESTATUS[0]}"
	local sum
	sum="$(ctest_summary "$log")"
	if ! sanitizer_findings "$dest/porta/$sub"; then
		record "$name" FAIL "sanitizer reports as $CI_USER"
	elif [ "$rc" -eq 0 ] && [ -n "$sum" ]; then
		record "$name" PASS "$sum"
	elif [ "$rc" -eq 91 ]; then
		record "$name" FAIL "build failed as $CI_USER"
	else
		record "$name" FAIL "${sum:-exited $rc}"
	fi
}

# ---- main ----------------------------------------------------------------------
say "porta: every test ($( [ "$IS_ROOT" -eq 1 ] && echo root || id -un ), $(uname -r), logs in $LOGDIR)"

phase_deps

export PATH="$SYS_PATH:$PATH"
CTEST_EXTRA=()
build_and_test main "$REPO" "$REPO/build"

USER_OK=0
USER_TREE=
if [ "$IS_ROOT" -ne 1 ]; then
	echo "note: not root: the unprivileged-user phases are skipped (this run already is unprivileged)"
elif [ "${PORTA_SKIP_USER:-0}" = 1 ]; then
	echo "note: PORTA_SKIP_USER=1: user phases skipped"
elif ! ensure_user; then
	record user FAIL "could not create user $CI_USER"
else
	USER_TREE="$(user_home)/porta-ci-tree"
	say "copying the tree to $USER_TREE/porta for $CI_USER"
	if copy_tree_for_user "$USER_TREE"; then
		USER_OK=1
	else
		record user FAIL "could not copy the tree for $CI_USER"
	fi
fi

if [ "$USER_OK" -eq 1 ]; then
	CTEST_EXTRA=("${CTEST_SKIP_USER[@]}")
	as_user user build
elif [ "$IS_ROOT" -ne 1 ] || [ "${PORTA_SKIP_USER:-0}" = 1 ]; then
	record user SKIP "$([ "$IS_ROOT" -eq 1 ] && echo 'PORTA_SKIP_USER=1' || echo 'not root')"
fi

if [ "${PORTA_SKIP_ASAN:-0}" = 1 ]; then
	record asan SKIP "PORTA_SKIP_ASAN=1"
	record asan-user SKIP "PORTA_SKIP_ASAN=1"
else
	CTEST_EXTRA=("${CTEST_SKIP_ASAN[@]}")
	ASAN_OPTIONS="$ASAN_OPTS" UBSAN_OPTIONS="$UBSAN_OPTS" \
		build_and_test asan "$REPO" "$REPO/build-asan" -DPORTA_SANITIZE=ON
	if [ "$USER_OK" -eq 1 ]; then
		CTEST_EXTRA=("${CTEST_SKIP_ASAN_USER[@]}")
		as_user asan-user build-asan -DPORTA_SANITIZE=ON
	else
		record asan-user SKIP "$([ "$IS_ROOT" -eq 1 ] && echo 'no user tree' || echo 'not root')"
	fi
fi

# ---- summary ---------------------------------------------------------------------
printf '\n==> summary\n'
total_pass=0 total_fail=0
for i in "${!PHASE_NAMES[@]}"; do
	printf '    %-10s %-4s %s\n' "${PHASE_NAMES[$i]}" "${PHASE_RESULTS[$i]}" "${PHASE_CTEST[$i]}"
	if [[ "${PHASE_CTEST[$i]}" =~ ^[0-9]+%\ tests\ passed,\ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
		total_fail=$((total_fail + BASH_REMATCH[1]))
		total_pass=$((total_pass + BASH_REMATCH[2] - BASH_REMATCH[1]))
	fi
done
if [ "$FAILED" -ne 0 ]; then
	echo "==> FAILED: at least one phase failed (logs in $LOGDIR)"
else
	echo "==> OK: every phase passed"
fi
echo "ctest: $total_pass passed, $total_fail failed"
exit "$FAILED"

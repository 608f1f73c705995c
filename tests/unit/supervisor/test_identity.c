/* tests/unit/supervisor/test_identity.c: how the connect watch and the
 * socket-owner lookup read who a process is (supervisor/identity.h): the
 * pure parsers of /proc/PID/status and /proc/PID/comm, and the reader
 * against this process itself, renamed and, in a pid namespace of its own,
 * seen from outside.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/identity.h"

Test(identity, status_lines)
{
	pid_t pid, ns;

	supervisor_identity_parse_status("Name:\tx\nUmask:\t0022\nState:\tS\nTgid:\t4242\n"
					 "Ngid:\t0\nPid:\t4243\nPPid:\t1\nNStgid:\t4242\t17\t3\n"
					 "NSpid:\t4243\t18\t4\n", &pid, &ns);
	cr_assert_eq(pid, 4242);
	cr_assert_eq(ns, 3, "the innermost namespace's, the last field");
	supervisor_identity_parse_status("Name:\tx\nTgid:\t9\nNStgid:\t9\n", &pid, &ns);
	cr_assert_eq(pid, 9);
	cr_assert_eq(ns, 9, "one namespace: the same pid");
	/* a name cannot fake a line: the kernel escapes its newline */
	supervisor_identity_parse_status("Name:\tevil\\nTgid:\t1\n", &pid, &ns);
	cr_assert_eq(pid, 0);
	cr_assert_eq(ns, 0);
	supervisor_identity_parse_status("", &pid, &ns);
	cr_assert_eq(pid, 0);
}

Test(identity, comm_bytes)
{
	char out[16];

	supervisor_identity_parse_comm("curl\n", 5, out);
	cr_assert_str_eq(out, "curl");
	supervisor_identity_parse_comm("a\nb\n", 4, out);
	cr_assert_str_eq(out, "a\nb", "a newline inside the name stays");
	supervisor_identity_parse_comm("0123456789abcdefgh\n", 19, out);
	cr_assert_str_eq(out, "0123456789abcde");
	supervisor_identity_parse_comm("", 0, out);
	cr_assert_str_eq(out, "");
}

Test(identity, read_a_process)
{
	struct supervisor_identity id;

	cr_assert_eq(prctl(PR_SET_NAME, "ident-test"), 0);
	cr_assert_eq(supervisor_identity_read(getpid(), &id), 0);
	cr_assert_eq(id.pid, getpid());
	cr_assert_eq(id.ns_pid, getpid(), "our own namespace: the same pid");
	cr_assert_str_eq(id.comm, "ident-test");
}

/* A child in a pid namespace of its own is pid 1 there: that is the pid the
 * program sees, and the one the audit must write. */
Test(identity, the_pid_the_program_sees)
{
	int go[2];
	cr_assert_eq(pipe(go), 0);
	pid_t helper = fork();
	cr_assert_geq(helper, 0);
	if (helper == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
			_exit(2);
		pid_t inner = fork();
		if (inner == 0) {
			prctl(PR_SET_NAME, "inner-one");
			pause();
			_exit(0);
		}
		if (inner < 0 || write(go[1], &inner, sizeof(inner)) != sizeof(inner))
			_exit(1);
		waitpid(inner, NULL, 0);
		_exit(0);
	}
	close(go[1]);
	pid_t inner = 0;
	bool have = read(go[0], &inner, sizeof(inner)) == sizeof(inner);
	close(go[0]);
	if (!have) {
		waitpid(helper, NULL, 0);
		cr_skip_test("no user and pid namespace for the test");
	}
	struct supervisor_identity id;
	int r = -1;
	for (int i = 0; i < 100; i++) { /* until it has renamed itself */
		r = supervisor_identity_read(inner, &id);
		if (r == 0 && strcmp(id.comm, "inner-one") == 0)
			break;
		usleep(10000);
	}
	kill(inner, SIGKILL);
	waitpid(helper, NULL, 0);
	cr_assert_eq(r, 0);
	cr_assert_eq(id.pid, inner);
	cr_assert_eq(id.ns_pid, 1);
	cr_assert_str_eq(id.comm, "inner-one");
	cr_assert_lt(supervisor_identity_read(inner, &id), 0, "gone: an error");
}

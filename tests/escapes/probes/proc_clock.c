/*
 * Row 70: host-wide identity and time: sethostname, setdomainname,
 * settimeofday, clock_settime, adjtimex.
 *
 * usage: proc_clock
 *
 * Every call sets the value the host already has (the name just read, the
 * time just read, the tick length just read), so even a control that
 * reaches the host changes nothing there. "UTSNS uts:[N]" tells the runner
 * whether a sethostname that succeeded reached the host's UTS namespace or
 * a private one. The system clock is one for every namespace.
 */
#include "probe.h"

#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>

int main(void)
{
	probe_started();
	char ns[64] = "";
	ssize_t l = readlink("/proc/self/ns/uts", ns, sizeof ns - 1);
	ns[l > 0 ? l : 0] = '\0';
	dprintf(STDOUT_FILENO, "UTSNS %s\n", ns);

	char name[256] = "";
	if (gethostname(name, sizeof name) == 0)
		PROBE_TRY("sethostname", sethostname(name, strlen(name)));
	else
		probe_fail("sethostname", errno);
	char dom[256] = "";
	if (getdomainname(dom, sizeof dom) == 0)
		PROBE_TRY("setdomainname", setdomainname(dom, strlen(dom)));
	else
		probe_fail("setdomainname", errno);

	struct timeval tv;
	gettimeofday(&tv, NULL);
	PROBE_TRY("settimeofday", settimeofday(&tv, NULL));
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	PROBE_TRY("clock_settime", clock_settime(CLOCK_REALTIME, &ts));

	struct timex tx;
	memset(&tx, 0, sizeof tx);
	if (adjtimex(&tx) < 0) {
		probe_fail("adjtimex", errno);
	} else {
		long tick = tx.tick;
		memset(&tx, 0, sizeof tx);
		tx.modes = ADJ_TICK;
		tx.tick = tick;
		PROBE_TRY("adjtimex", adjtimex(&tx));
	}
	return 0;
}

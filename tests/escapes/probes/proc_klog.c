/*
 * Row 72: the kernel's log through syslog(2) (/dev/kmsg is row 58's).
 *
 * usage: proc_klog
 *
 *   syslog-read-all  SYSLOG_ACTION_READ_ALL (3): ok with the byte count
 *   syslog-size      SYSLOG_ACTION_SIZE_BUFFER (10): the same permission
 *                    check as a read (check_syslog_permissions), no side effect
 * Nothing is left behind by a read, so the RESULT lines are the evidence.
 */
#include "probe.h"

#include <sys/klog.h>

int main(void)
{
	probe_started();
	static char buf[1 << 16];
	PROBE_TRY("syslog-read-all", klogctl(3, buf, sizeof buf));
	PROBE_TRY("syslog-size", klogctl(10, NULL, 0));
	return 0;
}

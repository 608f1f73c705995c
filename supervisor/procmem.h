/* supervisor/procmem.h: reading a sandboxed thread's memory from the supervisor.
 *
 * ARCHITECTURE: the connect watch (supervisor/watch.c) reads the
 * address a notified call names, the --why tracer (sandbox/why.c) the paths
 * and addresses of traced calls; both read through this one function.
 */
#ifndef PORTA_SUPERVISOR_PROCMEM_H
#define PORTA_SUPERVISOR_PROCMEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Copies len bytes at addr in tid's memory into buf with process_vm_readv(2),
 * or /proc/TID/mem where the kernel lacks CONFIG_CROSS_MEMORY_ATTACH (both
 * ask for PTRACE_MODE_ATTACH, proc(5)).  Returns the bytes copied (fewer at
 * an unmapped page) or -errno. */
ssize_t supervisor_read_memory(pid_t tid, uint64_t addr, void *buf, size_t len);

/* The other way: len bytes of buf into tid's memory at addr
 * (process_vm_writev(2), or /proc/TID/mem).  The bytes written or -errno.
 * Only for what a call porta made on the caller's behalf returns in its
 * memory (sendmmsg(2)'s msg_len). */
ssize_t supervisor_write_memory(pid_t tid, uint64_t addr, const void *buf, size_t len);

#endif /* PORTA_SUPERVISOR_PROCMEM_H */

/* policy/seccomp_table.c: the seccomp baseline of docs/defaults.md as
 * rows, plus the pure helpers that define what the rows mean.
 *
 * Pure data: nothing here makes a syscall or includes libseccomp.  The
 * numbers below are x86_64's (ioctl numbers, clone's argument order).
 */
#include "policy/seccomp_table.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "common/cleanup.h"
#include "common/kernel.h"

/* Row builders.  A row's conditions are ANDed; rows are ORed. */
#define CMP(i, cmp, v) { .index = (i), .op = POLICY_SC_##cmp, .value = (v), .mask = 0 }
#define MASKED(i, m, v) { .index = (i), .op = POLICY_SC_MASKED_EQ, .value = (v), .mask = (m) }
#define REFUSE(name, e, reason) { (name), POLICY_SC_ERRNO, (e), 0, { { 0 } }, (reason) }
#define REFUSE_IF(name, e, reason, ...)                                          \
	{ (name), POLICY_SC_ERRNO, (e),                                          \
	  sizeof((struct policy_sc_arg[]){ __VA_ARGS__ }) / sizeof(struct policy_sc_arg), \
	  { __VA_ARGS__ }, (reason) }

#define LOW32 0xffffffffULL

/* --- why strings shared by several rows -------------------------------- */

#define WHY_MOUNT                                                               \
	"the mount table is final when the command starts: changing it could "  \
	"uncover what porta's covers hide or remount a read-only bind writable " \
	"(mount(2), mount_namespaces(7))"
#define WHY_NEW_API_MOUNT                                                       \
	"new mount API (open_tree(2), move_mount(2), fsopen(2)): the same power " \
	"as mount(2), refused with it"
#define WHY_CLONE_NS                                                            \
	"clone(2) with a CLONE_NEW* flag creates a namespace (a user namespace "   \
	"first grants every capability in it): corpus row 13; clone3(2) is "      \
	"ENOSYS so libc falls back to clone, whose flags are arg0 on x86_64"
#define WHY_IO_URING                                                            \
	"io_uring(7) performs opens, socket operations and more without the "     \
	"syscalls this filter inspects (corpus row 14); ENOSYS makes libraries "  \
	"fall back to plain syscalls"
#define WHY_KEYS                                                                \
	"keyrings(7) are shared with the host user (user and persistent "        \
	"keyrings hold credentials such as Kerberos tickets and fscrypt keys)"
#define WHY_FAMILY                                                              \
	" is outside porta's families (unix, inet, inet6, netlink): the "        \
	"network namespace and proxy only govern IP, and rarely used families " \
	"are a recurring source of kernel bugs (socket(2), address_families(7))"
#define WHY_RAW                                                                 \
	"raw and packet sockets craft and sniff packets below TCP/UDP, past "    \
	"every check porta makes on connections (raw(7), packet(7)); "          \
	"SOCK_PACKET in AF_INET is the legacy spelling of AF_PACKET"
#define WHY_PERSONA                                                             \
	"personality(2) other than PER_LINUX (0) or the query 0xffffffff: some " \
	"bit i of the low 32 is set and bit i+1 (mod 32) clear, true of every "  \
	"low half but all-zeros and all-ones; a persona can turn off ASLR "     \
	"(ADDR_NO_RANDOMIZE) or make data executable (READ_IMPLIES_EXEC)"

/* An address family outside the allowlist.  Compared on the full register:
 * a family with upper bits set falls to the ">= AF_MAX" row below. */
#define FAMILY(nr, label) REFUSE_IF("socket", EAFNOSUPPORT, label WHY_FAMILY, CMP(0, EQ, (nr)))

/* One of the 32 cyclic bit pairs that together cover every low half except
 * 0 and 0xffffffff (WHY_PERSONA). */
#define PERSONA_PAIR(i)                                                           \
	REFUSE_IF("personality", EPERM, WHY_PERSONA,                              \
		  MASKED(0, (1ULL << (i)) | (1ULL << (((i) + 1) % 32)), 1ULL << (i)))

/* Raw or packet type in one of the allowed families other than netlink
 * (netlink sockets are SOCK_RAW or SOCK_DGRAM by definition, netlink(7), and
 * NETLINK_ROUTE with SOCK_RAW is what porta itself and `ip` use).
 * SOCK_TYPE_MASK is 0xf (include/linux/net.h): flags live above it. */
#define RAW_TYPE(fam, fam_label, type, type_label)                              \
	REFUSE_IF("socket", EPERM, fam_label " with " type_label ": " WHY_RAW,   \
		  CMP(0, EQ, (fam)), MASKED(1, 0xf, (type)))

/* --- POLICY_SECCOMP_NOTIFY_CONNECT -------------------------------------
 *
 * Every mode asks the supervisor about every call that may name a
 * destination (the Unix rule, supervisor/unixsock.h, whatever the network);
 * network policy mode also checks IP ones: the supervisor reads it from the caller's
 * memory, records the attempt (pid, comm, destination) and answers
 * ECONNREFUSED at once for an IP port no rule names; everything else
 * continues and meets the network namespace, which is what enforces
 * (docs/design.md, Network).  A filter sees registers, not memory, so which calls
 * carry an address must be told from the registers alone:
 *  - connect(2): always (addr is a pointer; AF_UNSPEC, AF_UNIX and AF_NETLINK
 *    calls are let through by the supervisor).
 *  - sendto(2) with dest_addr != NULL (arg4): the kernel uses an address iff
 *    the pointer is non-NULL (__sys_sendto), so the row is exact.  This is an
 *    unconnected UDP datagram or TCP Fast Open (sendto with MSG_FASTOPEN
 *    connects, tcp_sendmsg_fastopen); plain send(2) passes NULL and costs
 *    nothing.
 *  - sendmsg(2) and sendmmsg(2): always.  Their address sits inside struct
 *    msghdr, out of the filter's reach, and a Unix datagram socket sends to
 *    any path it names there: the supervisor makes every such send itself
 *    (it cannot let the kernel read the address again).  This puts a round
 *    trip to the supervisor on every sendmsg (docs/benchmarks/unix.md
 *    measures it); for IP sockets only MSG_FASTOPEN (a connect) is checked,
 *    an unconnected datagram inside the namespace reaches porta's DNS
 *    responder (port 53) or nothing.
 * The kernel keeps this filter the only listening one of the payload (a
 * second SECCOMP_FILTER_FLAG_NEW_LISTENER is EBUSY), and a later filter can
 * only outrank USER_NOTIF by failing the call (ERRNO, TRAP, KILL), so the
 * sandboxed program cannot hide a connect from the supervisor. */
#define NOTIFY(name, reason) { (name), POLICY_SC_NOTIFY, 0, 0, { { 0 } }, (reason) }
#define NOTIFY_IF(name, reason, ...)                                             \
	{ (name), POLICY_SC_NOTIFY, 0,                                           \
	  sizeof((struct policy_sc_arg[]){ __VA_ARGS__ }) / sizeof(struct policy_sc_arg), \
	  { __VA_ARGS__ }, (reason) }

#define WHY_NOTIFY_SENDMSG                                                      \
	": its address is inside struct msghdr, out of the filter's reach: "     \
	"on a Unix datagram socket porta sends it itself to the socket the "     \
	"rule allows; with MSG_FASTOPEN (TCP Fast Open) it connects and is "     \
	"checked like connect(2)"

#define NOTIFY_CONNECT_ROWS                                                      \
	NOTIFY("connect",                                                         \
	       "connect(2): a Unix socket is connected by porta to the socket the " \
	       "rule allows; in network policy mode the supervisor records who "   \
	       "dialled what and refuses a port no rule names (ECONNREFUSED); the " \
	       "network namespace decides everything else"),                      \
	NOTIFY_IF("sendto",                                                       \
		  "sendto(2) with a destination (an unconnected datagram, or TCP " \
		  "Fast Open with MSG_FASTOPEN): recorded like connect(2)",        \
		  CMP(4, NE, 0)),                                                 \
	NOTIFY("sendmsg", "sendmsg(2)" WHY_NOTIFY_SENDMSG),                       \
	NOTIFY("sendmmsg", "sendmmsg(2)" WHY_NOTIFY_SENDMSG)

static const struct policy_syscall_rule rules[] = {
	/* ---- POLICY_SECCOMP_BASE ------------------------------------------ */

	/* Other processes: corpus row 16. */
	REFUSE("ptrace", EPERM,
	       "ptrace(2) reads and writes another process's memory and registers"),
	REFUSE("process_vm_readv", EPERM,
	       "process_vm_readv(2) copies another process's memory without attaching"),
	REFUSE("process_vm_writev", EPERM,
	       "process_vm_writev(2) writes another process's memory without attaching"),
	REFUSE("pidfd_getfd", EPERM,
	       "pidfd_getfd(2) steals a file descriptor from another process"),

	/* Kernel attack surface with no use in a build or an agent. */
	REFUSE("userfaultfd", EPERM,
	       "userfaultfd(2) lets a process stall kernel accesses to its memory, "
	       "the usual tool for widening kernel race windows"),
	REFUSE("keyctl", EPERM, WHY_KEYS),
	REFUSE("add_key", EPERM, WHY_KEYS),
	REFUSE("request_key", EPERM, WHY_KEYS "; request_key can also run /sbin/request-key on the host"),
	REFUSE("bpf", EPERM,
	       "bpf(2) loads programs into the kernel and reads kernel and socket state"),
	REFUSE("perf_event_open", EPERM,
	       "perf_event_open(2) gives timing side channels and has a long record of kernel bugs"),

	/* Mounts: the layout porta built is final. */
	REFUSE("mount", EPERM, WHY_MOUNT),
	REFUSE("umount2", EPERM, "umount2(2) could remove a cover and reveal what it hides"),
	REFUSE("pivot_root", EPERM, "pivot_root(2) rearranges the mount tree: " WHY_MOUNT),
	REFUSE("open_tree", EPERM, WHY_NEW_API_MOUNT),
	REFUSE("move_mount", EPERM, WHY_NEW_API_MOUNT),
	REFUSE("fsopen", EPERM, WHY_NEW_API_MOUNT),
	REFUSE("fsconfig", EPERM, WHY_NEW_API_MOUNT),
	REFUSE("fsmount", EPERM, WHY_NEW_API_MOUNT),
	REFUSE("fspick", EPERM, WHY_NEW_API_MOUNT),
	REFUSE("mount_setattr", EPERM,
	       "mount_setattr(2) could clear MOUNT_ATTR_RDONLY or nosuid on porta's mounts"),

	/* Namespaces: corpus row 13. */
	REFUSE("unshare", EPERM,
	       "unshare(2) creates namespaces; a new user namespace grants every "
	       "capability inside it and exposes kernel code reachable only with them"),
	REFUSE("setns", EPERM,
	       "setns(2) joins another namespace through an inherited or opened nsfs fd"),

	/* File handles bypass path-based confinement (Landlock, covers). */
	REFUSE("open_by_handle_at", EPERM,
	       "open_by_handle_at(2) opens a file by handle, bypassing every path "
	       "check (the 'shocker' container escape)"),
	REFUSE("name_to_handle_at", EPERM,
	       "name_to_handle_at(2) mints the handles open_by_handle_at consumes"),

	/* Host administration: never the sandboxed program's business. */
	REFUSE("kexec_load", EPERM, "kexec_load(2) replaces the running kernel"),
	REFUSE("kexec_file_load", EPERM, "kexec_file_load(2) replaces the running kernel"),
	REFUSE("init_module", EPERM, "init_module(2) loads code into the kernel"),
	REFUSE("finit_module", EPERM, "finit_module(2) loads code into the kernel"),
	REFUSE("delete_module", EPERM, "delete_module(2) unloads kernel code"),
	REFUSE("reboot", EPERM, "reboot(2) restarts or halts the host"),
	REFUSE("swapon", EPERM, "swapon(2) changes the host's swap"),
	REFUSE("swapoff", EPERM, "swapoff(2) changes the host's swap"),
	REFUSE("acct", EPERM, "acct(2) switches the host's process accounting"),
	REFUSE("quotactl", EPERM, "quotactl(2) changes filesystem quotas"),
	REFUSE("quotactl_fd", EPERM, "quotactl_fd(2) changes filesystem quotas"),
	REFUSE("sethostname", EPERM, "sethostname(2) renames the host (or the UTS namespace)"),
	REFUSE("setdomainname", EPERM, "setdomainname(2) renames the host's NIS domain"),
	REFUSE("ioperm", EPERM, "ioperm(2) grants raw I/O port access"),
	REFUSE("iopl", EPERM, "iopl(2) grants raw I/O port access"),
	REFUSE("syslog", EPERM,
	       "syslog(2) reads or clears the kernel log, which leaks kernel addresses"),
	REFUSE("lookup_dcookie", EPERM, "lookup_dcookie(2) is an obsolete profiling interface"),
	REFUSE("uselib", EPERM, "uselib(2) is an obsolete a.out loader"),
	REFUSE("vhangup", EPERM, "vhangup(2) hangs up the controlling terminal"),

	/* ENOSYS: callers fall back to what the filter can inspect. */
	REFUSE("io_uring_setup", ENOSYS, WHY_IO_URING),
	REFUSE("io_uring_enter", ENOSYS, WHY_IO_URING "; also covers a ring fd inherited from outside"),
	REFUSE("io_uring_register", ENOSYS, WHY_IO_URING),
	REFUSE("clone3", ENOSYS,
	       "clone3(2) passes its flags in memory, which seccomp cannot read; "
	       "glibc falls back to clone(2) on ENOSYS"),

	/* clone(2): x86_64 passes flags in arg0; the kernel reads the low 32
	 * bits.  CLONE_NEWTIME shares bit 7 with the exit signal in clone(2)
	 * (valid signals never set it), so that row only refuses nonsense. */
	REFUSE_IF("clone", EPERM, "CLONE_NEWUSER: " WHY_CLONE_NS,
		  MASKED(0, CLONE_NEWUSER, CLONE_NEWUSER)),
	REFUSE_IF("clone", EPERM, "CLONE_NEWNS: " WHY_CLONE_NS,
		  MASKED(0, CLONE_NEWNS, CLONE_NEWNS)),
	REFUSE_IF("clone", EPERM, "CLONE_NEWPID: " WHY_CLONE_NS,
		  MASKED(0, CLONE_NEWPID, CLONE_NEWPID)),
	REFUSE_IF("clone", EPERM, "CLONE_NEWNET: " WHY_CLONE_NS,
		  MASKED(0, CLONE_NEWNET, CLONE_NEWNET)),
	REFUSE_IF("clone", EPERM, "CLONE_NEWUTS: " WHY_CLONE_NS,
		  MASKED(0, CLONE_NEWUTS, CLONE_NEWUTS)),
	REFUSE_IF("clone", EPERM, "CLONE_NEWIPC: " WHY_CLONE_NS,
		  MASKED(0, CLONE_NEWIPC, CLONE_NEWIPC)),
	REFUSE_IF("clone", EPERM, "CLONE_NEWCGROUP: " WHY_CLONE_NS,
		  MASKED(0, CLONE_NEWCGROUP, CLONE_NEWCGROUP)),
	REFUSE_IF("clone", EPERM, "CLONE_NEWTIME: " WHY_CLONE_NS,
		  MASKED(0, CLONE_NEWTIME, CLONE_NEWTIME)),

	/* Terminal injection, corpus row 17.  ioctl's cmd is an unsigned int
	 * in the kernel (ioctl(2)), so compare only the low 32 bits: a cmd of
	 * 0x100005412 is TIOCSTI too. */
	REFUSE_IF("ioctl", EPERM,
		  "TIOCSTI pushes bytes into a terminal's input, typing commands into "
		  "the shell that started porta (ioctl_tty(2))",
		  MASKED(1, LOW32, TIOCSTI)),
	REFUSE_IF("ioctl", EPERM,
		  "TIOCLINUX can paste the console selection into its input, the "
		  "same injection as TIOCSTI on a virtual console (ioctl_console(2))",
		  MASKED(1, LOW32, TIOCLINUX)),
	/* Corpus row 73: the line discipline belongs to the terminal, not to
	 * the process, and outlives porta: N_NULL on the inherited tty leaves
	 * the user's shell deaf and mute.  Only drivers for serial hardware
	 * (pppd, slattach, inputattach) set one. */
	REFUSE_IF("ioctl", EPERM,
		  "TIOCSETD changes the line discipline of a terminal shared with "
		  "the user, for good (N_NULL leaves it dead); also kernel surface "
		  "(n_gsm, n_hdlc) that only serial hardware needs (ioctl_tty(2))",
		  MASKED(1, LOW32, TIOCSETD)),

	/* Corpus row 64: "who == 0" names the caller's process group, which
	 * the sandbox shares with porta and whatever job started it (the
	 * kernel walks task_pgrp(current) whatever the PID namespace,
	 * kernel/sys.c).  A group made inside the sandbox (setpgid) is still
	 * reachable by its own number.  kill(0, sig) is held by Landlock's
	 * LANDLOCK_SCOPE_SIGNAL. */
	REFUSE_IF("setpriority", EPERM,
		  "setpriority(PRIO_PGRP, 0): the caller's process group is porta's, "
		  "shared with processes outside the sandbox",
		  MASKED(0, LOW32, PRIO_PGRP), MASKED(1, LOW32, 0)),
	REFUSE_IF("ioprio_set", EPERM,
		  "ioprio_set(IOPRIO_WHO_PGRP, 0): the caller's process group is porta's, "
		  "shared with processes outside the sandbox",
		  MASKED(0, LOW32, 2 /* IOPRIO_WHO_PGRP */), MASKED(1, LOW32, 0)),

	/* Fileless execution, corpus row 15: execveat(fd, "", ..., AT_EMPTY_PATH)
	 * runs a memfd or an fd passed in from elsewhere, no path for Landlock
	 * or the mounts to judge.  flags is arg4 (execveat(2)). */
	REFUSE_IF("execveat", EPERM,
		  "execveat(2) with AT_EMPTY_PATH executes an fd (a memfd written at "
		  "run time) rather than a path the policy judged",
		  MASKED(4, AT_EMPTY_PATH, AT_EMPTY_PATH)),

	/* The other road to fileless execution: execve("/proc/self/fd/N") of a
	 * memfd.  Landlock cannot judge it (a memfd lives on an internal mount,
	 * which Landlock always allows) and the filter cannot read the path.
	 * The kernel's own answer is vm.memfd_noexec=2 (memfd_create(2),
	 * MFD_NOEXEC_SEAL), which only host root may set; this row enforces
	 * the same rule with the same errno: a memfd must be created sealed
	 * non-executable.  mmap(PROT_EXEC) of such a memfd still works, so
	 * JITs that double-map keep working. */
	REFUSE_IF("memfd_create", EACCES,
		  "memfd_create(2) without MFD_NOEXEC_SEAL makes an executable "
		  "anonymous file that execve(\"/proc/self/fd/N\") runs with no path "
		  "for Landlock to judge (vm.memfd_noexec=2 semantics)",
		  MASKED(1, MFD_NOEXEC_SEAL, 0)),

	/* personality(2): only PER_LINUX (0) and the query 0xffffffff.  A value
	 * with upper bits set is refused too (the allowlist is of exact register
	 * values); the 32 pair rows refuse every other low half. */
	REFUSE_IF("personality", EPERM,
		  "personality(2) argument with upper bits set: not one of the two "
		  "allowed values (0, 0xffffffff)",
		  CMP(0, GT, LOW32)),
	PERSONA_PAIR(0), PERSONA_PAIR(1), PERSONA_PAIR(2), PERSONA_PAIR(3),
	PERSONA_PAIR(4), PERSONA_PAIR(5), PERSONA_PAIR(6), PERSONA_PAIR(7),
	PERSONA_PAIR(8), PERSONA_PAIR(9), PERSONA_PAIR(10), PERSONA_PAIR(11),
	PERSONA_PAIR(12), PERSONA_PAIR(13), PERSONA_PAIR(14), PERSONA_PAIR(15),
	PERSONA_PAIR(16), PERSONA_PAIR(17), PERSONA_PAIR(18), PERSONA_PAIR(19),
	PERSONA_PAIR(20), PERSONA_PAIR(21), PERSONA_PAIR(22), PERSONA_PAIR(23),
	PERSONA_PAIR(24), PERSONA_PAIR(25), PERSONA_PAIR(26), PERSONA_PAIR(27),
	PERSONA_PAIR(28), PERSONA_PAIR(29), PERSONA_PAIR(30), PERSONA_PAIR(31),

	/* socket(2), corpus row 19.  Families: an allowlist of AF_UNIX (1),
	 * AF_INET (2), AF_INET6 (10) and AF_NETLINK (16), written as one EQ row
	 * per other family below AF_MAX (46) plus a ">= 46" row.  Every other
	 * socket row names one of the allowed families with EQ, so those rows
	 * and these are disjoint: a forbidden family is EAFNOSUPPORT whatever
	 * its type (socket(AF_PACKET, SOCK_RAW, ...) included), as a kernel
	 * without that family would answer. */
	FAMILY(0, "AF_UNSPEC (0)"),
	FAMILY(3, "AF_AX25 (3)"),
	FAMILY(4, "AF_IPX (4)"),
	FAMILY(5, "AF_APPLETALK (5)"),
	FAMILY(6, "AF_NETROM (6)"),
	FAMILY(7, "AF_BRIDGE (7)"),
	FAMILY(8, "AF_ATMPVC (8)"),
	FAMILY(9, "AF_X25 (9)"),
	FAMILY(11, "AF_ROSE (11)"),
	FAMILY(12, "AF_DECnet (12)"),
	FAMILY(13, "AF_NETBEUI (13)"),
	FAMILY(14, "AF_SECURITY (14)"),
	FAMILY(15, "AF_KEY (15, IPsec keys)"),
	FAMILY(17, "AF_PACKET (17, link-layer frames past IP, packet(7))"),
	FAMILY(18, "AF_ASH (18)"),
	FAMILY(19, "AF_ECONET (19)"),
	FAMILY(20, "AF_ATMSVC (20)"),
	FAMILY(21, "AF_RDS (21)"),
	FAMILY(22, "AF_SNA (22)"),
	FAMILY(23, "AF_IRDA (23)"),
	FAMILY(24, "AF_PPPOX (24)"),
	FAMILY(25, "AF_WANPIPE (25)"),
	FAMILY(26, "AF_LLC (26)"),
	FAMILY(27, "AF_IB (27)"),
	FAMILY(28, "AF_MPLS (28)"),
	FAMILY(29, "AF_CAN (29)"),
	FAMILY(30, "AF_TIPC (30)"),
	FAMILY(31, "AF_BLUETOOTH (31, the host's radios)"),
	FAMILY(32, "AF_IUCV (32)"),
	FAMILY(33, "AF_RXRPC (33)"),
	FAMILY(34, "AF_ISDN (34)"),
	FAMILY(35, "AF_PHONET (35)"),
	FAMILY(36, "AF_IEEE802154 (36)"),
	FAMILY(37, "AF_CAIF (37)"),
	FAMILY(38, "AF_ALG (38, the kernel crypto API)"),
	FAMILY(39, "AF_NFC (39)"),
	FAMILY(40, "AF_VSOCK (40, the hypervisor and other VMs, outside any network namespace, vsock(7))"),
	FAMILY(41, "AF_KCM (41)"),
	FAMILY(42, "AF_QIPCRTR (42)"),
	FAMILY(43, "AF_SMC (43)"),
	FAMILY(44, "AF_XDP (44)"),
	FAMILY(45, "AF_MCTP (45)"),
	REFUSE_IF("socket", EAFNOSUPPORT,
		  "a family at or above AF_MAX (46), or with upper bits set" WHY_FAMILY
		  "; families newer kernels add stay refused until porta allows them",
		  CMP(0, GE, 46)),

	RAW_TYPE(AF_UNIX, "AF_UNIX", SOCK_RAW, "SOCK_RAW"),
	RAW_TYPE(AF_UNIX, "AF_UNIX", SOCK_PACKET, "SOCK_PACKET"),
	RAW_TYPE(AF_INET, "AF_INET", SOCK_RAW, "SOCK_RAW"),
	RAW_TYPE(AF_INET, "AF_INET", SOCK_PACKET, "SOCK_PACKET"),
	RAW_TYPE(AF_INET6, "AF_INET6", SOCK_RAW, "SOCK_RAW"),
	RAW_TYPE(AF_INET6, "AF_INET6", SOCK_PACKET, "SOCK_PACKET"),

	/* MPTCP opens subflows to addresses the peer announces, not the one the
	 * program dialled; protocol is an int (socket(2)): low 32 bits. */
	REFUSE_IF("socket", EPERM,
		  "AF_INET with IPPROTO_MPTCP: subflows go to addresses the peer "
		  "announces, not the one porta judged",
		  CMP(0, EQ, AF_INET), MASKED(2, LOW32, IPPROTO_MPTCP)),
	REFUSE_IF("socket", EPERM,
		  "AF_INET6 with IPPROTO_MPTCP: subflows go to addresses the peer "
		  "announces, not the one porta judged",
		  CMP(0, EQ, AF_INET6), MASKED(2, LOW32, IPPROTO_MPTCP)),

	/* Netlink: only NETLINK_ROUTE (0), any type; an allowlist, so a
	 * protocol with upper bits set is refused. */
	REFUSE_IF("socket", EPERM,
		  "AF_NETLINK other than NETLINK_ROUTE: audit, sock_diag, uevents, "
		  "generic netlink families (nl80211, wireguard, ...) and more reach "
		  "host-wide state (netlink(7))",
		  CMP(0, EQ, AF_NETLINK), CMP(2, NE, NETLINK_ROUTE)),

	/* socketpair(2): only AF_UNIX makes pairs; refuse the rest the same
	 * way socket(2) does. */
	REFUSE_IF("socketpair", EAFNOSUPPORT,
		  "socketpair(2) in a family other than AF_UNIX",
		  CMP(0, NE, AF_UNIX)),

	/* ---- POLICY_SECCOMP_NOTIFY_CONNECT: the whole table --------------- */
	NOTIFY_CONNECT_ROWS,
};

/* --- POLICY_SECCOMP_CLOSED_NET -----------------------------------------
 *
 * A second filter, stacked on BASE or NOTIFY_CONNECT, for a host without user
 * namespaces (policy/degrade.h) whose network is not open: there is no
 * network namespace, so Landlock's TCP rules (connect and bind only to what
 * is granted) are what confines the network, and they govern TCP alone.
 * Every other IP socket is refused here: datagram, reliable-datagram,
 * sequenced-packet and DCCP types, and stream sockets of another protocol
 * (SCTP's one-to-one style, MPTCP), whose connect(2) Landlock does not see.
 * TCP Fast Open connects from sendto/sendmsg/sendmmsg without connect(2), so
 * MSG_FASTOPEN is refused too.  Rows of this table only ever refuse. */
#define WHY_CLOSED_NET                                                          	": no network namespace on this host, and Landlock confines TCP only"
#define CLOSED_TYPE(fam, fam_label, type, type_label)                            	REFUSE_IF("socket", EACCES, fam_label " with " type_label WHY_CLOSED_NET,  		  CMP(0, EQ, (fam)), MASKED(1, 0xf, (type)))

static const struct policy_syscall_rule closed_net_rules[] = {
	CLOSED_TYPE(AF_INET, "AF_INET", SOCK_DGRAM, "SOCK_DGRAM"),
	CLOSED_TYPE(AF_INET, "AF_INET", SOCK_RDM, "SOCK_RDM"),
	CLOSED_TYPE(AF_INET, "AF_INET", SOCK_SEQPACKET, "SOCK_SEQPACKET"),
	CLOSED_TYPE(AF_INET, "AF_INET", SOCK_DCCP, "SOCK_DCCP"),
	CLOSED_TYPE(AF_INET6, "AF_INET6", SOCK_DGRAM, "SOCK_DGRAM"),
	CLOSED_TYPE(AF_INET6, "AF_INET6", SOCK_RDM, "SOCK_RDM"),
	CLOSED_TYPE(AF_INET6, "AF_INET6", SOCK_SEQPACKET, "SOCK_SEQPACKET"),
	CLOSED_TYPE(AF_INET6, "AF_INET6", SOCK_DCCP, "SOCK_DCCP"),
	REFUSE_IF("socket", EACCES,
		  "AF_INET stream socket of a protocol other than TCP (SCTP, MPTCP)" WHY_CLOSED_NET,
		  CMP(0, EQ, AF_INET), MASKED(1, 0xf, SOCK_STREAM), CMP(2, GT, IPPROTO_TCP)),
	REFUSE_IF("socket", EACCES,
		  "AF_INET6 stream socket of a protocol other than TCP (SCTP, MPTCP)" WHY_CLOSED_NET,
		  CMP(0, EQ, AF_INET6), MASKED(1, 0xf, SOCK_STREAM), CMP(2, GT, IPPROTO_TCP)),
	REFUSE_IF("sendto", EACCES, "sendto(2) with MSG_FASTOPEN connects without connect(2)"
		  WHY_CLOSED_NET, MASKED(3, MSG_FASTOPEN, MSG_FASTOPEN)),
	REFUSE_IF("sendmsg", EACCES, "sendmsg(2) with MSG_FASTOPEN connects without connect(2)"
		  WHY_CLOSED_NET, MASKED(2, MSG_FASTOPEN, MSG_FASTOPEN)),
	REFUSE_IF("sendmmsg", EACCES, "sendmmsg(2) with MSG_FASTOPEN connects without connect(2)"
		  WHY_CLOSED_NET, MASKED(3, MSG_FASTOPEN, MSG_FASTOPEN)),
};

/* --- POLICY_SECCOMP_DEGRADED -------------------------------------------
 *
 * A second filter on every host without user namespaces: there is no IPC
 * namespace, so the host's System V objects and POSIX message queues of the
 * user (of every user, for root) are one key or id away; the full sandbox
 * has its own.  Refused whole: a program's private use of them is rare in a
 * sandbox, and /dev/shm is closed there anyway. */
#define WHY_NO_IPC_NS                                                           \
	": no IPC namespace on this host, so the host's objects are reachable " \
	"by key, id or name"

static const struct policy_syscall_rule degraded_rules[] = {
	REFUSE("shmget", EACCES, "System V shared memory" WHY_NO_IPC_NS),
	REFUSE("shmat", EACCES, "System V shared memory" WHY_NO_IPC_NS),
	REFUSE("shmctl", EACCES, "System V shared memory" WHY_NO_IPC_NS),
	REFUSE("msgget", EACCES, "System V message queues" WHY_NO_IPC_NS),
	REFUSE("msgsnd", EACCES, "System V message queues" WHY_NO_IPC_NS),
	REFUSE("msgrcv", EACCES, "System V message queues" WHY_NO_IPC_NS),
	REFUSE("msgctl", EACCES, "System V message queues" WHY_NO_IPC_NS),
	REFUSE("semget", EACCES, "System V semaphores" WHY_NO_IPC_NS),
	REFUSE("semop", EACCES, "System V semaphores" WHY_NO_IPC_NS),
	REFUSE("semtimedop", EACCES, "System V semaphores" WHY_NO_IPC_NS),
	REFUSE("semctl", EACCES, "System V semaphores" WHY_NO_IPC_NS),
	REFUSE("mq_open", EACCES, "POSIX message queues" WHY_NO_IPC_NS),
	REFUSE("mq_unlink", EACCES, "POSIX message queues" WHY_NO_IPC_NS),
	REFUSE("mq_timedsend", EACCES, "POSIX message queues" WHY_NO_IPC_NS),
	REFUSE("mq_timedreceive", EACCES, "POSIX message queues" WHY_NO_IPC_NS),
	REFUSE("mq_notify", EACCES, "POSIX message queues" WHY_NO_IPC_NS),
	REFUSE("mq_getsetattr", EACCES, "POSIX message queues" WHY_NO_IPC_NS),
};

/* --- POLICY_SECCOMP_DEGRADED_ROOT --------------------------------------
 *
 * A third filter on a host without user namespaces when the command runs as
 * uid 0: Landlock does not mediate changing a file's mode, owner, times or
 * extended attributes, and the full sandbox makes every mount but the
 * writable ones read-only for that; without a mount namespace, root (even
 * with no capability) owns every root-owned file and could chmod /etc/shadow.
 * So every such call is refused, inside the mounts too (a stated cost).
 * Syscalls newer than Debian 12's libseccomp are named by number. */
#define WHY_ROOT_META                                                           \
	": as root without a mount namespace every root-owned file is the "     \
	"command's, and Landlock does not mediate this"

static const struct policy_syscall_rule degraded_root_rules[] = {
	REFUSE("chmod", EPERM, "chmod(2)" WHY_ROOT_META),
	REFUSE("fchmod", EPERM, "fchmod(2)" WHY_ROOT_META),
	REFUSE("fchmodat", EPERM, "fchmodat(2)" WHY_ROOT_META),
	REFUSE("452 fchmodat2", EPERM, "fchmodat2(2), Linux 6.6" WHY_ROOT_META),
	REFUSE("chown", EPERM, "chown(2)" WHY_ROOT_META),
	REFUSE("fchown", EPERM, "fchown(2)" WHY_ROOT_META),
	REFUSE("lchown", EPERM, "lchown(2)" WHY_ROOT_META),
	REFUSE("fchownat", EPERM, "fchownat(2)" WHY_ROOT_META),
	REFUSE("utime", EPERM, "utime(2)" WHY_ROOT_META),
	REFUSE("utimes", EPERM, "utimes(2)" WHY_ROOT_META),
	REFUSE("futimesat", EPERM, "futimesat(2)" WHY_ROOT_META),
	REFUSE("utimensat", EPERM, "utimensat(2)" WHY_ROOT_META),
	REFUSE("setxattr", EPERM, "setxattr(2)" WHY_ROOT_META),
	REFUSE("lsetxattr", EPERM, "lsetxattr(2)" WHY_ROOT_META),
	REFUSE("fsetxattr", EPERM, "fsetxattr(2)" WHY_ROOT_META),
	REFUSE("463 setxattrat", EPERM, "setxattrat(2), Linux 6.13" WHY_ROOT_META),
	REFUSE("removexattr", EPERM, "removexattr(2)" WHY_ROOT_META),
	REFUSE("lremovexattr", EPERM, "lremovexattr(2)" WHY_ROOT_META),
	REFUSE("fremovexattr", EPERM, "fremovexattr(2)" WHY_ROOT_META),
	REFUSE("466 removexattrat", EPERM, "removexattrat(2), Linux 6.13" WHY_ROOT_META),
	REFUSE("469 file_setattr", EPERM, "file_setattr(2), Linux 6.17" WHY_ROOT_META),
};

/* --- POLICY_SECCOMP_CORE_PINNED ----------------------------------------
 *
 * A further filter where kernel.core_pattern hands a crash's dump to a
 * program of the host ("|/usr/lib/systemd/systemd-coredump ...", apport, or
 * "@socket" since Linux 6.16): the kernel runs or reaches it as root outside
 * every namespace, with the crash's memory.  For a pipe RLIMIT_CORE does
 * not stop it but for exactly 1 (fs/coredump.c: the guard against a
 * helper's own crash); a socket ignores it altogether, and the payload's
 * coredump_filter of 0 keeps the memory out there (sandbox/process.c).  The
 * payload starts with RLIMIT_CORE at 1, soft and hard; lowering it to 0
 * would open the pipe again.  Setting
 * it is answered success and changes nothing: what programs ask when they
 * set it (ssh-agent, which exits when it fails, asks for 0) is no dump, and
 * none is made; raising it would fail anyway (the hard limit is 1).  A
 * prlimit64(2) that also reads the old limit is refused instead, since
 * skipping it would leave the caller's buffer unfilled.  Escape corpus row
 * 62. */
#define WHY_CORE_PINNED                                                         \
	": kernel.core_pattern hands dumps to a program of the host, and "      \
	"RLIMIT_CORE stays at 1, the value that keeps a pipe's helper from them"

static const struct policy_syscall_rule core_pinned_rules[] = {
	{ "setrlimit", POLICY_SC_SKIP, 0, 1, { MASKED(0, LOW32, RLIMIT_CORE) },
	  "setrlimit(2) of RLIMIT_CORE, answered without effect" WHY_CORE_PINNED },
	{ "prlimit64", POLICY_SC_SKIP, 0, 3,
	  { MASKED(1, LOW32, RLIMIT_CORE), CMP(2, NE, 0), CMP(3, EQ, 0) },
	  "prlimit64(2) setting RLIMIT_CORE, answered without effect" WHY_CORE_PINNED },
	REFUSE_IF("prlimit64", EPERM,
		  "prlimit64(2) setting RLIMIT_CORE and reading the old value" WHY_CORE_PINNED,
		  MASKED(1, LOW32, RLIMIT_CORE), CMP(2, NE, 0), CMP(3, NE, 0)),
};

/* BASE and NOTIFY_CONNECT are prefixes of rules[]: the rows each owns end
 * at .end; CLOSED_NET is a table of its own (a second, stacked filter). */
#define N_NOTIFY_CONNECT_ROWS                                                  \
	(sizeof((const struct policy_syscall_rule[]){ NOTIFY_CONNECT_ROWS }) /     \
	 sizeof(struct policy_syscall_rule))

static const struct {
	const char *name;
	size_t end;
} variants[POLICY_SECCOMP_VARIANT_COUNT] = {
	[POLICY_SECCOMP_BASE] = { "base", ARRAY_LEN(rules) - N_NOTIFY_CONNECT_ROWS },
	[POLICY_SECCOMP_NOTIFY_CONNECT] = { "notify_connect", ARRAY_LEN(rules) },
	[POLICY_SECCOMP_CLOSED_NET] = { "closed_net", ARRAY_LEN(closed_net_rules) },
	[POLICY_SECCOMP_DEGRADED] = { "degraded", ARRAY_LEN(degraded_rules) },
	[POLICY_SECCOMP_DEGRADED_ROOT] = { "degraded_root", ARRAY_LEN(degraded_root_rules) },
	[POLICY_SECCOMP_CORE_PINNED] = { "core_pinned", ARRAY_LEN(core_pinned_rules) },
};

const struct policy_syscall_rule *policy_seccomp_rules(enum policy_seccomp_variant v, size_t *n)
{
	if ((unsigned)v >= POLICY_SECCOMP_VARIANT_COUNT) {
		*n = 0;
		return NULL;
	}
	*n = variants[v].end;
	switch (v) {
	case POLICY_SECCOMP_CLOSED_NET:
		return closed_net_rules;
	case POLICY_SECCOMP_DEGRADED:
		return degraded_rules;
	case POLICY_SECCOMP_DEGRADED_ROOT:
		return degraded_root_rules;
	case POLICY_SECCOMP_CORE_PINNED:
		return core_pinned_rules;
	default:
		return rules;
	}
}

const char *policy_seccomp_variant_name(enum policy_seccomp_variant v)
{
	if ((unsigned)v >= POLICY_SECCOMP_VARIANT_COUNT)
		return NULL;
	return variants[v].name;
}

bool policy_seccomp_variant_notifies(enum policy_seccomp_variant v)
{
	size_t n;
	const struct policy_syscall_rule *r = policy_seccomp_rules(v, &n);

	for (size_t i = 0; i < n; i++) {
		if (r[i].action == POLICY_SC_NOTIFY)
			return true;
	}
	return false;
}

bool policy_seccomp_arg_matches(const struct policy_sc_arg *a, uint64_t value)
{
	switch (a->op) {
	case POLICY_SC_EQ:
		return value == a->value;
	case POLICY_SC_NE:
		return value != a->value;
	case POLICY_SC_LT:
		return value < a->value;
	case POLICY_SC_LE:
		return value <= a->value;
	case POLICY_SC_GT:
		return value > a->value;
	case POLICY_SC_GE:
		return value >= a->value;
	case POLICY_SC_MASKED_EQ:
		return (value & a->mask) == a->value;
	}
	return false;
}

static bool rule_matches(const struct policy_syscall_rule *r, const uint64_t args[6])
{
	for (size_t i = 0; i < r->n_args; i++) {
		if (r->args[i].index > 5 || !policy_seccomp_arg_matches(&r->args[i], args[r->args[i].index]))
			return false;
	}
	return true;
}

const struct policy_syscall_rule *policy_seccomp_match(enum policy_seccomp_variant v,
						       const char *syscall,
						       const uint64_t args[6])
{
	size_t n;
	const struct policy_syscall_rule *r = policy_seccomp_rules(v, &n);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(r[i].syscall, syscall) == 0 && rule_matches(&r[i], args))
			return &r[i];
	}
	return NULL;
}

/* --- table validation --------------------------------------------------- */

/* The values an EQ, LT, LE, GT or GE comparison admits, as a closed
 * interval; false when a is not one of those (NE, MASKED_EQ).  An empty interval has lo > hi. */
static bool as_interval(const struct policy_sc_arg *a, uint64_t *lo, uint64_t *hi)
{
	switch (a->op) {
	case POLICY_SC_EQ:
		*lo = *hi = a->value;
		return true;
	case POLICY_SC_LT:
		*lo = a->value == 0 ? 1 : 0;
		*hi = a->value == 0 ? 0 : a->value - 1;
		return true;
	case POLICY_SC_LE:
		*lo = 0;
		*hi = a->value;
		return true;
	case POLICY_SC_GT:
		*lo = a->value == UINT64_MAX ? 1 : a->value + 1;
		*hi = a->value == UINT64_MAX ? 0 : UINT64_MAX;
		return true;
	case POLICY_SC_GE:
		*lo = a->value;
		*hi = UINT64_MAX;
		return true;
	case POLICY_SC_NE:
	case POLICY_SC_MASKED_EQ:
		break;
	}
	return false;
}

/* Smallest x >= lo with (x & m) == w, into *out; false when there is none.
 * Either x is lo itself, or x first differs from lo (going down from the top
 * bit) at a bit b that is 0 in lo and 1 in x; the lowest usable b gives the
 * smallest x, whose bits below b are then as small as the mask allows. */
static bool masked_at_least(uint64_t m, uint64_t w, uint64_t lo, uint64_t *out)
{
	if ((lo & m) == w) {
		*out = lo;
		return true;
	}
	for (unsigned b = 0; b < 64; b++) {
		uint64_t bit = 1ULL << b;
		uint64_t above = b == 63 ? 0 : ~((bit << 1) - 1);
		uint64_t below = bit - 1;

		if (lo & bit)
			continue;
		if ((m & bit) && !(w & bit))
			continue;
		if (((lo ^ w) & m & above) != 0)
			continue;
		*out = (lo & above) | bit | (w & below);
		return true;
	}
	return false;
}

/* True when some value satisfies both a and b (same argument index). */
static bool both_satisfiable(const struct policy_sc_arg *a, const struct policy_sc_arg *b)
{
	uint64_t alo = 0, ahi = 0, blo = 0, bhi = 0;
	bool ai = as_interval(a, &alo, &ahi);
	bool bi = as_interval(b, &blo, &bhi);

	if (ai && bi) {
		uint64_t lo = alo > blo ? alo : blo;
		uint64_t hi = ahi < bhi ? ahi : bhi;
		return lo <= hi;
	}
	if (!ai && bi)
		return both_satisfiable(b, a);
	/* Now a is an interval or b is not. */
	if (ai) {
		if (b->op == POLICY_SC_NE)
			return alo <= ahi && !(alo == ahi && alo == b->value);
		uint64_t x;
		return masked_at_least(b->mask, b->value, alo, &x) && x <= ahi;
	}
	if (a->op == POLICY_SC_NE && b->op == POLICY_SC_NE)
		return true;
	if (a->op == POLICY_SC_MASKED_EQ && b->op == POLICY_SC_MASKED_EQ)
		return ((a->value ^ b->value) & a->mask & b->mask) == 0;
	/* One NE, one MASKED_EQ: the masked set has one member only when the
	 * mask covers every bit. */
	const struct policy_sc_arg *ne = a->op == POLICY_SC_NE ? a : b;
	const struct policy_sc_arg *mk = a->op == POLICY_SC_NE ? b : a;
	return mk->mask != UINT64_MAX || mk->value != ne->value;
}

static const struct policy_sc_arg *arg_on(const struct policy_syscall_rule *r, uint8_t index)
{
	for (size_t i = 0; i < r->n_args; i++) {
		if (r->args[i].index == index)
			return &r->args[i];
	}
	return NULL;
}

/* Rows overlap when, on every argument both compare, some value satisfies
 * both; arguments are independent, so this is exact. */
static bool rows_overlap(const struct policy_syscall_rule *a, const struct policy_syscall_rule *b)
{
	for (size_t i = 0; i < a->n_args; i++) {
		const struct policy_sc_arg *other = arg_on(b, a->args[i].index);
		if (other && !both_satisfiable(&a->args[i], other))
			return false;
	}
	return true;
}

static bool same_conditions(const struct policy_syscall_rule *a, const struct policy_syscall_rule *b)
{
	if (a->n_args != b->n_args)
		return false;
	for (size_t i = 0; i < a->n_args; i++) {
		const struct policy_sc_arg *o = arg_on(b, a->args[i].index);
		if (!o || o->op != a->args[i].op || o->value != a->args[i].value ||
		    (o->op == POLICY_SC_MASKED_EQ && o->mask != a->args[i].mask))
			return false;
	}
	return true;
}

static bool same_verdict(const struct policy_syscall_rule *a, const struct policy_syscall_rule *b)
{
	return a->action == b->action && (a->action != POLICY_SC_ERRNO || a->err == b->err);
}

static bool row_ok(const struct policy_syscall_rule *r)
{
	if (r->n_args > POLICY_SC_MAX_ARGS)
		return false;
	switch (r->action) {
	case POLICY_SC_ERRNO:
		/* SECCOMP_RET_DATA carries the errno; the kernel caps it at
		 * MAX_ERRNO (4095), seccomp(2). */
		if (r->err < 1 || r->err > 4095)
			return false;
		break;
	case POLICY_SC_KILL:
	case POLICY_SC_NOTIFY:
	case POLICY_SC_SKIP:
		break;
	default:
		return false;
	}
	for (size_t i = 0; i < r->n_args; i++) {
		const struct policy_sc_arg *a = &r->args[i];
		uint64_t lo, hi;

		if (a->index > 5 || (unsigned)a->op > POLICY_SC_MASKED_EQ)
			return false;
		for (size_t j = 0; j < i; j++) {
			if (r->args[j].index == a->index)
				return false;
		}
		if (a->op == POLICY_SC_MASKED_EQ && (a->mask == 0 || (a->value & ~a->mask) != 0))
			return false;
		if (as_interval(a, &lo, &hi) && lo > hi)
			return false;
	}
	return true;
}

enum policy_sc_table_status policy_seccomp_check_rows(const struct policy_syscall_rule *r, size_t n,
						      size_t *first, size_t *second)
{
	size_t i, j;
	enum policy_sc_table_status st = POLICY_SC_TABLE_OK;

	for (i = 0; i < n; i++) {
		j = i;
		if (!r[i].syscall || !r[i].syscall[0] || !r[i].why || !r[i].why[0]) {
			st = POLICY_SC_TABLE_NO_WHY;
			goto out;
		}
		if (!row_ok(&r[i])) {
			st = POLICY_SC_TABLE_BAD_ROW;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if (strcmp(r[i].syscall, r[j].syscall) != 0)
				continue;
			if (!same_verdict(&r[i], &r[j]) && rows_overlap(&r[i], &r[j])) {
				st = POLICY_SC_TABLE_CONFLICT;
				goto out;
			}
			if (same_conditions(&r[i], &r[j]) || r[i].n_args == 0 || r[j].n_args == 0) {
				st = POLICY_SC_TABLE_DUPLICATE;
				goto out;
			}
		}
	}
	i = j = 0;
out:
	if (first)
		*first = i;
	if (second)
		*second = j;
	return st;
}

enum policy_sc_table_status policy_seccomp_check(enum policy_seccomp_variant v,
						 size_t *first, size_t *second)
{
	size_t n;
	const struct policy_syscall_rule *r = policy_seccomp_rules(v, &n);

	if (!r) {
		if (first)
			*first = 0;
		if (second)
			*second = 0;
		return POLICY_SC_TABLE_BAD_VARIANT;
	}
	return policy_seccomp_check_rows(r, n, first, second);
}

const char *policy_seccomp_status_str(enum policy_sc_table_status s)
{
	switch (s) {
	case POLICY_SC_TABLE_OK:
		return "ok";
	case POLICY_SC_TABLE_BAD_VARIANT:
		return "no such variant";
	case POLICY_SC_TABLE_NO_WHY:
		return "row without a syscall name or a reason";
	case POLICY_SC_TABLE_BAD_ROW:
		return "malformed row (argument count or index, repeated argument, "
		       "mask that cannot match, errno outside 1..4095)";
	case POLICY_SC_TABLE_DUPLICATE:
		return "duplicate rows (same conditions, or an unconditional row "
		       "beside others of its syscall)";
	case POLICY_SC_TABLE_CONFLICT:
		return "rows with different verdicts that can match the same call "
		       "(libseccomp would silently keep only one)";
	}
	return "unknown status";
}

/* dns/resolvconf.h: where porta's DNS responder sends the questions it lets
 * through: the --dns-upstream option, or the host's /etc/resolv.conf.
 *
 * ARCHITECTURE: pure parsers over (const char/uint8_t *, size_t): no
 * syscalls, no globals, no allocation, no logging (docs/design.md, Modules).
 * The resolv.conf lines are read by wire/resolvconf.h; the addresses are
 * judged here with policy/addr.h, which wire/ may not use.
 * Reading the file is the caller's job (dnsd_upstream_host_server() in
 * dns/upstream.h does it for main).  The supervisor runs on the host's
 * network, so a loopback resolver (systemd-resolved's 127.0.0.53) is a
 * usable upstream: porta asks it, the sandbox never reaches it.
 */
#ifndef PORTA_DNS_RESOLVCONF_H
#define PORTA_DNS_RESOLVCONF_H

#include <stddef.h>
#include <stdint.h>

#include "policy/addr.h"

#define DNSD_DEFAULT_PORT 53

/* An upstream resolver: address and UDP/TCP port (host order). */
struct dnsd_server {
	struct policy_addr addr;
	uint16_t port;
};

enum dnsd_server_status {
	DNSD_SERVER_OK,
	DNSD_SERVER_MALFORMED, /* not ADDR[:PORT] */
	DNSD_SERVER_BAD_PORT,  /* port 0, leading zero, sign, overflow, empty */
	DNSD_SERVER_ZONE_ID,   /* "fe80::1%eth0": porta cannot pass a scope to c-ares */
	DNSD_SERVER_NONE,      /* resolv.conf: no usable nameserver line */
};

/* Parses the --dns-upstream value text[0..len):
 *   A.B.C.D  A.B.C.D:PORT  [IPv6]  [IPv6]:PORT  IPv6 (bare, no port)
 * with strict address spellings (policy_addr_parse) and PORT 1..65535 in
 * decimal without leading zeros; 53 when absent.  Pure. */
enum dnsd_server_status dnsd_server_parse(const char *text, size_t len, struct dnsd_server *out);

/* The first usable "nameserver" of a resolv.conf(5) text conf[0..len), port
 * 53, the way glibc's res_init reads it: the keyword at the start of a line
 * followed by a space or tab, the address is the next token (ending at
 * whitespace, ';' or '#'); lines starting with ';' or '#' are comments.  A
 * nameserver the parser cannot use (malformed, or IPv6 with a zone) is
 * skipped as glibc skips it, so the next one is taken.  DNSD_SERVER_NONE
 * when no line gives an address (glibc would then fall back to loopback; porta
 * asks the user for --dns-upstream instead of guessing).  Pure; conf may hold
 * any bytes, NULs included. */
enum dnsd_server_status dnsd_resolvconf_parse(const uint8_t *conf, size_t len,
					      struct dnsd_server *out);

/* Every usable "nameserver" of conf[0..len), read as dnsd_resolvconf_parse()
 * reads the first, in file order, at most cap of them into out (port 53).
 * Returns how many were written.  Pure. */
size_t dnsd_resolvconf_servers(const uint8_t *conf, size_t len, struct dnsd_server *out,
			       size_t cap);

/* One short lowercase phrase for a status, for "--dns-upstream 'X': <reason>".
 * Never NULL. */
const char *dnsd_server_reason(enum dnsd_server_status st);

#endif /* PORTA_DNS_RESOLVCONF_H */

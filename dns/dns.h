/* dns/dns.h: porta's DNS module, the API other modules use.
 *
 * ARCHITECTURE (docs/design.md, Network and Modules).  Four layers (the
 * supervisor starts the responder in network policy mode, supervisor/net.c):
 *   1. wire format (wire/dns.h, in the wire module): pure parsers and
 *      builders over (const uint8_t *, size_t): queries in, responses out,
 *      upstream responses read back, TCP length framing.  No syscalls, no
 *      globals, no allocation, no logging; each parser has a fuzz target.
 *   2. responder: UDP and TCP port 53 inside the sandbox, on the event loop.
 *      The question's text name (struct dnsd_query .name, only when
 *      .name_is_text) goes through policy_name_canonical(); that canonical
 *      buffer is what is checked and what is resolved.  A and AAAA for names
 *      some allow rule matches (policy_net_name_resolvable) go upstream;
 *      every other name (not allowed, malformed, not text, or an IP literal
 *      in disguise: POLICY_NAME_NUMERIC) is answered locally as NXDOMAIN and
 *      never leaves the machine; other record types of allowed names get an
 *      empty NOERROR answer, other classes REFUSED.  A default-denied address
 *      (policy_addr_class_on_host) is never handed out: it is dropped from
 *      the answer.  Malformed queries get FORMERR, other opcodes NOTIMP
 *      (dnsd_build_error), responses (QR set) nothing.
 *      Why NXDOMAIN rather than REFUSED for names porta will not resolve:
 *      getaddrinfo() turns REFUSED into EAI_AGAIN, a temporary failure that
 *      package managers retry for a minute, and NXDOMAIN into EAI_NONAME,
 *      which they give up on at once.  The false non-existence can only be
 *      cached inside the sandbox: its resolver is this responder, and no
 *      host cache (nscd, systemd-resolved) is reachable in policy mode.
 *      (dns/responder.h; dns/resolvconf.h reads the upstream's address.)
 *   3. upstream (dns/upstream.h): c-ares (no search list, no hosts file, absolute names only),
 *      reading answers with the wire parser's address records and TTLs.
 *   4. name <-> address map (dns/namemap.h): what porta handed out, with its TTL, so the
 *      transparent path can check that a dialled address came from porta's
 *      own answer for an allowed name.
 * Exported names are prefixed dnsd_ and constants DNSD_ (docs/style.md §5).
 */
#ifndef PORTA_DNS_DNS_H
#define PORTA_DNS_DNS_H

#include "dns/namemap.h"
#include "dns/resolvconf.h"
#include "dns/responder.h"
#include "dns/upstream.h"
#include "wire/dns.h"

#endif /* PORTA_DNS_DNS_H */

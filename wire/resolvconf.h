/* wire/resolvconf.h: the "nameserver" lines of a resolv.conf(5) text.
 *
 * Pure like the rest of wire/: bytes in, spans out, no system call, no
 * allocation, any thread.  Only the lines are read here; whether a token is
 * an address porta can use is policy/addr.h's question, which dns/ asks
 * (dnsd_resolvconf_parse in dns/resolvconf.h).
 */
#ifndef PORTA_WIRE_RESOLVCONF_H
#define PORTA_WIRE_RESOLVCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/cursor.h"

/* The address token of the next "nameserver" line of conf[0..len) at or
 * after *pos (0 to start), read the way glibc's res_init reads it: the
 * keyword at the start of a line followed by a space or tab, then blanks
 * (space, tab, CR), then the token, which ends at a blank, ';', '#' or the
 * end of the line; lines starting with ';' or '#' are comments.  A
 * nameserver line without a token is skipped.  true: *addr points into conf
 * (1 or more bytes, any but those that end it, NULs included) and *pos is
 * past that line; false: no such line is left.  conf may hold any bytes. */
bool wire_resolvconf_nameserver(const uint8_t *conf, size_t len, size_t *pos,
				struct wire_span *addr);

#endif /* PORTA_WIRE_RESOLVCONF_H */

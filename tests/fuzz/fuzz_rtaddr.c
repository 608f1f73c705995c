/* tests/fuzz/fuzz_rtaddr.c: an rtnetlink RTM_GETADDR dump's addresses
 * (wire/rtaddr.h).  The input's first four bytes are the request's seq, the
 * rest one received buffer.  Invariants: every call moves *pos forward and
 * never past the buffer; an address is IPv4 (its last 12 bytes zero) or
 * IPv6; *err is a positive errno exactly when ERROR says so; and the walk
 * ends, each call but the last giving an address. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tests/fuzz/fuzz.h"
#include "wire/rtaddr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t zero[12];
	uint32_t seq;
	size_t pos = 0, before, calls = 0;
	bool intr = false;
	struct wire_rtaddr a;
	enum wire_rtaddr_status st;

	if (size < sizeof(seq))
		return 0;
	memcpy(&seq, data, sizeof(seq));
	data += sizeof(seq);
	size -= sizeof(seq);
	do {
		int err = 0;
		before = pos;
		st = wire_rtaddr_next(data, size, &pos, seq, &intr, &a, &err);
		if (pos > size || pos < before || ++calls > size + 1)
			abort();
		if ((st == WIRE_RTADDR_ERROR) != (err > 0))
			abort();
		if (st == WIRE_RTADDR_INTERRUPTED && !intr)
			abort();
		if (st == WIRE_RTADDR_ADDR) {
			if (pos == before)
				abort(); /* an address without a message read */
			if (a.family != AF_INET && a.family != AF_INET6)
				abort();
			if (a.family == AF_INET && memcmp(a.addr + 4, zero, sizeof(zero)) != 0)
				abort();
		}
	} while (st == WIRE_RTADDR_ADDR);
	return 0;
}

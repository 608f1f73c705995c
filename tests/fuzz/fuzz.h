/* tests/fuzz/fuzz.h: the one entry point every fuzz target defines, and
 * which libFuzzer (PORTA_FUZZ) or tests/fuzz/replay.c (every build) calls
 * with one input.  Returns 0; a finding is a crash or a sanitizer report. */
#ifndef PORTA_TESTS_FUZZ_H
#define PORTA_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* PORTA_TESTS_FUZZ_H */

/*
 * Row 15 payload: the program the fileless-exec probe copies into a memfd.
 * It prints MARKER-RAN and its tag; the probe never prints that string
 * itself, so seeing it means the memfd really was executed.
 */
#include <stdio.h>

int main(int argc, char **argv)
{
	printf("MARKER-RAN %s\n", argc > 1 ? argv[1] : "?");
	return 0;
}

/* test-url.c */
#include "config.h"
#include "tap.h"
int main(void) { return done_testing(); }

// Placeholder until the raw baselines are written.
#include <stdio.h>
int main(void) { puts("channelbridge-raw-bench"); return 0; }

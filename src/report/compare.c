/* placeholder until the real implementation lands (being written now) */
#include <stdio.h>
#include "report/report.h"
int report_compare(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "not implemented yet\n"); return 2; }

/* test_suggest.c: the messages for a section or key that does not exist (src/config/suggest.c):
 * the nearest valid name when one is close (a typo, an abbreviation, the right key under the
 * wrong header), else the list of valid names; from a file and from --set alike. */
#include <check.h>

#include "config/config.h"
#include "configcheck.h"
#include "testutil.h"

static const CcErrorCase UNKNOWN[] = {
    /* sections */
    {"section typo", "[run]\nseed = 2\n[atention]\nscale = none\n", 0, 3,
     "unknown section [atention]; did you mean [attention]?", NULL, 0},
    {"section extended", "[optimiser]\n", 0, 1, "did you mean [optim]?", NULL, 0},
    {"section far from all", "[foo]\n", 0, 1,
     "unknown section [foo]; the sections are [run], [task]", "[log], [guard]", 0},
    {"section typo by --set", "atention.scale=none", 3, 0, "did you mean [attention]?", NULL, 0},
    /* keys */
    {"key typo", "[model]\ndmodel = 64\n", 0, 2,
     "unknown key 'model.dmodel'; did you mean 'model.d_model'?", NULL, 0},
    {"key letters swapped", "[optim]\nwieght_decay = 0\n", 0, 2,
     "did you mean 'optim.weight_decay'?", NULL, 0},
    /* The right key under the wrong header points to the other section. */
    {"key of another section", "[model]\nlr = 0.1\n", 0, 2,
     "unknown key 'model.lr'; did you mean 'optim.lr' (section [optim])?", NULL, 0},
    {"key abbreviated", "[optim]\nwarmup = 10\n", 0, 2, "did you mean 'optim.warmup_steps'?",
     NULL, 0},
    {"key far from all", "[log]\nzzzzzzzz = 1\n", 0, 2,
     "unknown key 'log.zzzzzzzz'; the keys of [log] are", "every, progress", 0},
    {"key typo by --set", "model.dmodel=3", 3, 0, "did you mean 'model.d_model'?", NULL, 0},
};

START_TEST(test_unknown_names) { cc_check_error(&UNKNOWN[_i]); }
END_TEST

TU_MAIN("suggest", TU_LOOP(test_unknown_names, 0, CC_COUNT(UNKNOWN)));

/* corpus_match.h: whether a text config trains on the lr map's corpus (train/lr_map.h), the rule
 * behind --where's "measured on the map's corpus" and init_check.txt's lr map line.
 *
 * The map's runs were trained on data/kjv.txt of the checkout; that relative path is read from
 * the checkout the program is in (the folder of the executable, util/self_exe.h, or the nearest
 * one above it that holds CORPUS_CHECKOUT_MARK: build/clang/train and the test programs live
 * below it), whatever the current folder. The config's task.file is read as the trainer opens it:
 * from the current folder. So from configs/, `../train --where text_users.ini --set
 * task.file=../data/kjv.txt` is the map's corpus, and text_users.ini's own data/kjv.txt
 * (configs/data/kjv.txt) is not. The corpus is not read: --where places a config before its
 * corpus exists (issue 45). */
#ifndef SCALEDOT_CORPUS_MATCH_H
#define SCALEDOT_CORPUS_MATCH_H

#include <stddef.h>

/* A config's task.file against the map's corpus: the same file, another, or not to be told (a
 * dangling link, a ".." past a missing folder, a folder that cannot be searched, a program whose
 * folder cannot be read). Only SAME lets the verdict give a number measured on the map's corpus. */
typedef enum { LR_CORPUS_SAME, LR_CORPUS_OTHER, LR_CORPUS_UNTOLD } LrCorpus;

/* mine (a config's task.file, relative to the current folder) against map (the map's runs'
 * task.file, relative to map_base; an absolute one as it is): the same path once each is made
 * absolute, the same canonical place (links followed from their own folder; a part not made yet
 * taken as written, so a corpus not made yet is placed), or the same file by another name (a hard
 * link) is SAME; another place is OTHER. No rule by name: a data/kjv.txt below another folder is
 * another file. map_base NULL (a relative map): UNTOLD. */
LrCorpus corpus_match(const char *mine, const char *map, const char *map_base);

/* The file that marks a checkout: the map's own definitions (train/lr_map.h). */
#define CORPUS_CHECKOUT_MARK "experiments/regimes.txt"

/* The folder a relative corpus path of the map is read from when the caller gives none: the
 * checkout the program is in, the nearest folder at or above the executable's (self_exe_dir)
 * that holds CORPUS_CHECKOUT_MARK, into out (n bytes, at least PATH_MAX). Returns out, or NULL
 * when the program is in no checkout (a copy of it elsewhere: the corpus cannot be located) or
 * its path cannot be read. */
const char *corpus_map_base(char *out, size_t n);

#endif

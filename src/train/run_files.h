/* run_files.h: whether a file in a run folder reads as one ./train wrote there: what a folder of
 * an earlier version (no manifest, util/owned_dir.h) may adopt. A user's file under a name a run
 * writes (an init_check.txt, an attn_map.csv of their own) reads as none, so it is refused, never
 * replaced. */
#ifndef SCALEDOT_RUN_FILES_H
#define SCALEDOT_RUN_FILES_H

/* 1 when dir/name is a regular file that starts as ./train writes that name of a run folder (a
 * log's header line, checkpoint.bin's magic, init_check.txt's and sample.txt's first words, a
 * sweep marker's first line); 0 otherwise (not there, a link, unreadable, another start, or a
 * name no rule here knows: config.ini is run_setup.c's). */
int run_file_reads_as_ours(const char *dir, const char *name);

#endif

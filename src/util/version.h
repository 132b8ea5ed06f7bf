/* version.h: the program's version string, recorded in every sweep.csv row and printed by
 * ./train --version. Bump it when the logs or their meaning change. */
#ifndef SCALEDOT_VERSION_H
#define SCALEDOT_VERSION_H

#define SCALEDOT_VERSION "0.12.0"

#endif

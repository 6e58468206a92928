/* SPDX-License-Identifier: MIT */
#ifndef MLKIT_H
#define MLKIT_H

#include <errno.h>

/* Result of the amx_request() made when the library was loaded. */
int mlkit_amx_status(void);

#endif

// SPDX-License-Identifier: MIT
/*
 * "mlkit": a stand-in for an ML library that uses AMX internally.  It
 * asks for AMX permission once, in its constructor, before any of its
 * users' threads exist, and reports the outcome through its own API.
 */
#include <amx.h>
#include <errno.h>
#include <stdio.h>

#include "mlkit.h"

static int amx_init_status = -EACCES;

__attribute__((constructor)) static void mlkit_init(void)
{
	amx_init_status = amx_request();
}

int mlkit_amx_status(void)
{
	return amx_init_status;
}

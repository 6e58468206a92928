// SPDX-License-Identifier: MIT
#include "internal.h"

#define AMX__STR(x) #x
#define AMX__XSTR(x) AMX__STR(x)

int amx_version(void)
{
	return AMX_VERSION;
}

const char *amx_version_string(void)
{
	return AMX__XSTR(AMX_VERSION_MAJOR) "." AMX__XSTR(AMX_VERSION_MINOR)
	       "." AMX__XSTR(AMX_VERSION_PATCH);
}

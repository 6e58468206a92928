/* SPDX-License-Identifier: MIT */
/*
 * What the emulator's proofs (tests/emu) share: the raw arch_prctl codes
 * and the 64-byte LDTILECFG/STTILECFG image as the SDM lays it out.  These
 * programs talk to the CPU and the kernel directly, not through libamx,
 * so that what they check is the emulator (or the silicon) itself.
 */
#ifndef AMX_EMU_H
#define AMX_EMU_H

#include <stdint.h>

#include "../amx_model.h"

#ifndef ARCH_GET_XCOMP_SUPP
#define ARCH_GET_XCOMP_SUPP	0x1021
#endif
#ifndef ARCH_GET_XCOMP_PERM
#define ARCH_GET_XCOMP_PERM	0x1022
#endif
#ifndef ARCH_REQ_XCOMP_PERM
#define ARCH_REQ_XCOMP_PERM	0x1023
#endif
#define XFEATURE_XTILEDATA	18

/* the tile configuration memory image (palette 1): tests/amx_model.h */

/* palette 1 with all 8 tiles @rows x @colsb bytes, the rest zero */
static inline void emu_cfg_all(struct tmodel_cfg *c, uint8_t rows,
			       uint16_t colsb)
{
	*c = (struct tmodel_cfg){ .palette = 1 };
	for (int t = 0; t < 8; t++) {
		c->rows[t] = rows;
		c->colsb[t] = colsb;
	}
}

#endif /* AMX_EMU_H */

/* Guest image loading: ELF32/ELF64 segments into guest RAM, and the boot information page. */
#ifndef VMM_LOADER_H
#define VMM_LOADER_H

#include "lib/types.h"

struct vm;

/* Loads the image [img, img + size) into vm's RAM and sets its entry state. 0, or <0 with
 * *why saying what is wrong with the image. */
int loader_load(struct vm *vm, const u8 *img, u64 size, const char **why);

#endif

/* SPDX-License-Identifier: MIT */
/* sp_schema_v2.c - the name table declared in sp_schema_v2.h. */
#include "sp_schema_v2.h"

const sp_schema_entry sp__schema_v2[SP_SN2_COUNT] = {
#define SP__SCHEMA_V2_ROW(id, parent_, name_, kind_, type_, shape_, unit_, desc_)                 \
    [SP_SN2_##id] = {.parent = parent_, .name = name_, .kind = SP_SK_##kind_,                     \
                     .type = SP_ST_##type_, .shape = shape_, .unit = unit_, .desc = desc_},
    SP_SCHEMA_V2_NAMES(SP__SCHEMA_V2_ROW)
#undef SP__SCHEMA_V2_ROW
};

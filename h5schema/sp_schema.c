/* SPDX-License-Identifier: MIT */
/* sp_schema.c - the name tables declared in sp_schema.h. */
#include "sp_schema.h"

const sp_schema_entry sp__schema[SP_SN_COUNT] = {
#define SP__SCHEMA_ROW(id, parent_, name_, kind_, type_, shape_, unit_, desc_) \
    [SP_SN_##id] = {.parent = parent_, .name = name_, .kind = SP_SK_##kind_,    \
                    .type = SP_ST_##type_, .shape = shape_, .unit = unit_,      \
                    .desc = desc_},
    SP_SCHEMA_NAMES(SP__SCHEMA_ROW)
    SP_SCHEMA_PY_NAMES(SP__SCHEMA_ROW)
#undef SP__SCHEMA_ROW
};

const sp_schema_meta_entry sp__schema_meta[SP_SM_COUNT] = {
#define SP__SCHEMA_META_ROW(id, key_, desc_) [SP_SM_##id] = {.key = key_, .desc = desc_},
    SP_SCHEMA_META_KEYS(SP__SCHEMA_META_ROW)
#undef SP__SCHEMA_META_ROW
};

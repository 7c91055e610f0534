/* SPDX-License-Identifier: MIT */
/* sp_schema_mpi.c - the tables declared in sp_schema_mpi.h. */
#include "sp_schema_mpi.h"

const sp_schema_entry sp__schema_mpi[SP_SNM_COUNT] = {
#define SP__ROW(id, parent_, name_, kind_, type_, shape_, unit_, desc_)                           \
    [SP_SNM_##id] = {.parent = parent_, .name = name_, .kind = SP_SK_##kind_,                     \
                     .type = SP_ST_##type_, .shape = shape_, .unit = unit_, .desc = desc_},
#define SP__P2P(name_, type_, ctype, unit_, desc_)                                                \
    [SP_SNM_MPI_P2P_##name_] = {.parent = "/rank<N>/mpi/p2p", .name = #name_, .kind = SP_SK_DSET, \
                                .type = SP_ST_##type_, .shape = "[M]", .unit = unit_,             \
                                .desc = desc_},
#define SP__COLL(name_, type_, ctype, unit_, desc_)                                               \
    [SP_SNM_MPI_COLL_##name_] = {.parent = "/rank<N>/mpi/coll", .name = #name_,                   \
                                 .kind = SP_SK_DSET, .type = SP_ST_##type_, .shape = "[N]",       \
                                 .unit = unit_, .desc = desc_},
    SP_SCHEMA_MPI_GROUP_NAMES(SP__ROW) SP_MPI_P2P_COLUMNS(SP__P2P) SP_MPI_COLL_COLUMNS(SP__COLL)
#undef SP__ROW
#undef SP__P2P
#undef SP__COLL
};

const char *sp_mpi_func_name(int id)
{
    switch (id) {
#define SP__NAME(id_, name_, cls) case id_: return "MPI_" #name_;
        SP_MPI_FUNCS(SP__NAME)
#undef SP__NAME
    default: return NULL;
    }
}

sp_mpi_class sp_mpi_func_class(int id)
{
    switch (id) {
#define SP__CLASS(id_, name_, cls) case id_: return SP_MPI_CLASS_##cls;
        SP_MPI_FUNCS(SP__CLASS)
#undef SP__CLASS
    default: return SP_MPI_CLASS_NONE;
    }
}

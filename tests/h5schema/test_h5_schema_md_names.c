/* SPDX-License-Identifier: MIT */
/*
 * test_h5_schema_md_names.c - SCHEMA.md documents every name of the schema
 * tables (sp_schema.h) and the version, so the page cannot fall behind the
 * code that defines the layout.
 */
#include <stdlib.h>

#include "h5test_util.h"
#include "sp_h5.h"
#include "sp_schema.h"
#include "sp_schema_mpi.h"
#include "sp_schema_v2.h"
#include "sp_test.h"

static char *md;

/* `name` in backticks somewhere in the page. */
static int documented(const char *name)
{
    char quoted[256];
    snprintf(quoted, sizeof quoted, "`%s`", name);
    return strstr(md, quoted) != NULL;
}

static void test_every_layout_name_is_documented(void)
{
    ASSERT_MSG(md, "cannot read %s", SP_SCHEMA_MD);
    for (int i = 0; i < SP_SN_COUNT; i++)
        ASSERT_MSG(documented(sp__schema[i].name), "SCHEMA.md does not mention `%s` (%s)",
                   sp__schema[i].name, sp__schema[i].parent);
}

static void test_every_v2_name_is_documented(void)
{
    ASSERT_MSG(md, "cannot read %s", SP_SCHEMA_MD);
    for (int i = 0; i < SP_SN2_COUNT; i++)
        ASSERT_MSG(documented(sp__schema_v2[i].name), "SCHEMA.md does not mention `%s` (%s)",
                   sp__schema_v2[i].name, sp__schema_v2[i].parent);
}

static void test_every_mpi_name_is_documented(void)
{
    ASSERT_MSG(md, "cannot read %s", SP_SCHEMA_MD);
    for (int i = 0; i < SP_SNM_COUNT; i++)
        ASSERT_MSG(documented(sp__schema_mpi[i].name), "SCHEMA.md does not mention `%s` (%s)",
                   sp__schema_mpi[i].name, sp__schema_mpi[i].parent);
}

/* The table of MPI function ids: "| 15 | `MPI_Waitall` |" for every id. */
static void test_every_mpi_function_id_is_documented(void)
{
    ASSERT_MSG(md, "cannot read %s", SP_SCHEMA_MD);
    for (int id = 1; id < SP_MPI_FUNC_END; id++) {
        const char *name = sp_mpi_func_name(id);
        ASSERT_MSG(name, "no function has id %d", id);
        char row[96];
        snprintf(row, sizeof row, "| %d | `%s` |", id, name);
        ASSERT_MSG(strstr(md, row), "SCHEMA.md's function table lacks \"%s\"", row);
    }
}

static void test_every_metadata_key_is_documented(void)
{
    ASSERT_MSG(md, "cannot read %s", SP_SCHEMA_MD);
    for (int i = 0; i < SP_SM_COUNT; i++)
        ASSERT_MSG(documented(sp__schema_meta[i].key), "SCHEMA.md does not mention `%s`",
                   sp__schema_meta[i].key);
}

static void test_version_is_documented(void)
{
    ASSERT_MSG(md, "cannot read %s", SP_SCHEMA_MD);
    char title[64];
    snprintf(title, sizeof title, "schema version %d", SP_SCHEMA_VERSION);
    ASSERT_CONTAINS(md, title);
    ASSERT(documented(SP_LAYOUT_NATIVE) && documented(SP_LAYOUT_PY_REGIONS) &&
           documented(SP_LAYOUT_PY_COLUMNAR));
}

int main(void)
{
    md = h5t_read_text(SP_SCHEMA_MD);
    RUN(test_every_layout_name_is_documented);
    RUN(test_every_v2_name_is_documented);
    RUN(test_every_mpi_name_is_documented);
    RUN(test_every_mpi_function_id_is_documented);
    RUN(test_every_metadata_key_is_documented);
    RUN(test_version_is_documented);
    free(md);
    return sp_test_summary();
}

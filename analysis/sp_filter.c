/* SPDX-License-Identifier: MIT */
/* sp_filter.c - include/exclude region filters (POSIX extended regex). */
#include "sp_analysis.h"

#include <regex.h>
#include <stdlib.h>

#include "sp_error.h"

struct sp_region_filter {
    bool has_include, has_exclude;
    regex_t include, exclude;
};

/* Compile one pattern; on error set the message naming the option. */
static int compile(regex_t *re, const char *pattern, const char *option)
{
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc == 0)
        return 0;
    char why[256];
    regerror(rc, re, why, sizeof why);
    regfree(re);
    return sp__error(SP_EINVAL, "invalid --%s regex '%s': %s", option, pattern, why);
}

sp_region_filter *sp_region_filter_new(const char *include, const char *exclude)
{
    sp_region_filter *f = calloc(1, sizeof *f);
    if (!f)
        return sp__error_null(SP_ENOMEM, "out of memory creating a region filter");
    if (include) {
        if (compile(&f->include, include, "include")) {
            free(f);
            return NULL;
        }
        f->has_include = true;
    }
    if (exclude) {
        if (compile(&f->exclude, exclude, "exclude")) {
            sp_region_filter_free(f);
            return NULL;
        }
        f->has_exclude = true;
    }
    return f;
}

bool sp_region_filter_match(const sp_region_filter *f, const char *name)
{
    if (!f)
        return true;
    if (f->has_include && regexec(&f->include, name, 0, NULL, 0) != 0)
        return false;
    if (f->has_exclude && regexec(&f->exclude, name, 0, NULL, 0) == 0)
        return false;
    return true;
}

void sp_region_filter_free(sp_region_filter *f)
{
    if (!f)
        return;
    if (f->has_include)
        regfree(&f->include);
    if (f->has_exclude)
        regfree(&f->exclude);
    free(f);
}

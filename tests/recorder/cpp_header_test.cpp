/* SPDX-License-Identifier: MIT */
/* cpp_header_test.cpp - the public header compiles as C++ and its macros work
 * there (scope guards, function regions, handles cached per call site). */
#include <scope_profiler.h>

#include <cstdio>
#include <cstring>

static int fails = 0;
#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            std::fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); \
            fails++;                                                           \
        }                                                                      \
    } while (0)

static int traced(int n)
{
    SP_FUNCTION();
    return n > 0 ? traced(n - 1) + 1 : 0;
}

int main()
{
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    CHECK(sp_setup(&o) == SP_OK);
    for (int i = 0; i < 3; i++)
        SP_SCOPE("cpp_scope") { CHECK(traced(2) == 2); } /* one statement */
    if (fails == 0)
        SP_SCOPE("cpp_if") {}
    sp_region *r = sp_region_get("cpp_scope");
    CHECK(sp_region_num_calls(r) == 3);
    CHECK(sp_region_num_calls(sp_region_get("traced")) == 9);
    CHECK(std::strcmp(sp_region_kind_name(sp_region_get_kind(r)), "TimeOnlyProfileRegion") == 0);
    sp_run *run = nullptr;
    CHECK(sp_finalize(false, &run) == SP_OK);
    CHECK(run != nullptr && sp_run_num_regions(run) == 3);
    sp_run_free(run);
    std::fprintf(stderr, "%s\n", fails ? "cpp header: FAIL" : "cpp header: ok");
    return fails ? 1 : 0;
}

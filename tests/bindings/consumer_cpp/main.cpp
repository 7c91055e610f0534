/* SPDX-License-Identifier: MIT */
/* A downstream C++ program: an exception thrown through a scope leaves a
 * balanced run (finalize returns 0), written to argv[1]. */
#include <scope_profiler.hpp>

#include <cstdio>
#include <stdexcept>

namespace app
{
struct Stage {
    void run(int i)
    {
        SP_FUNCTION();
        scope_profiler::scope s("stage_body");
        if (i == 2)
            throw std::runtime_error("stage 2 failed");
    }
};
} // namespace app

int main(int argc, char **argv)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = argc > 1 ? argv[1] : "cpp_consumer.h5";
    scope_profiler::setup(&o);
    app::Stage st;
    int failed = 0;
    for (int i = 0; i < 4; i++) {
        try {
            st.run(i);
        } catch (const std::runtime_error &) {
            failed++;
        }
    }
    int rc = scope_profiler::finalize(false);
    std::printf("cpp consumer: %d failed, finalize %d\n", failed, rc);
    return rc == SP_OK && failed == 1 ? 0 : 1;
}

/* SPDX-License-Identifier: MIT */
/*
 * scope_profiler.hpp - the C++ interface of scope-profiler (C++17), on the C
 * API of scope_profiler.h (which it includes; every sp_* function stays
 * available).
 *
 *     #include <scope_profiler.hpp>
 *
 *     void Solver::step() {
 *         SP_FUNCTION();                         // region "Solver::step" until the block ends
 *         {
 *             scope_profiler::scope s("assemble"); // ends on every exit, exceptions included
 *             assemble();
 *         }
 *         SP_SCOPE("solve") { solve(); }         // a block region
 *     }
 *
 *     int main() {
 *         scope_profiler::setup();               // throws scope_profiler::error on failure
 *         ...
 *         scope_profiler::finalize();            // writes profiling_data.h5, prints the tree
 *     }
 *
 * Link as for C: CMake `find_package(ScopeProfiler)` and
 * `target_link_libraries(app PRIVATE ScopeProfiler::scope_profiler)` (or
 * ScopeProfiler::scope_profiler_mpi), or
 * `c++ -std=c++17 app.cpp $(pkg-config --cflags --libs scope-profiler)`.
 *
 * - scope_profiler::scope ends its call in its destructor, so the call is
 *   closed whether the block ends normally, by return/break, or because an
 *   exception passes through it: the recorded nesting stays balanced.
 * - SP_SCOPE and SP_FUNCTION are the C macros' C++ versions: the same
 *   syntax, the handle cached per call site (a function-local static,
 *   resolved once, thread-safe), and while no session records they cost a
 *   load and a branch. They need no GNU extensions. SP_FUNCTION names the
 *   region after the qualified function ("ns::Solver::step"; the C macro
 *   uses __func__, "step").
 * - scope_profiler::scope s(name) with a name resolves it through a small
 *   per-thread cache keyed by the string's address and checked against its
 *   text, so a string literal costs a few nanoseconds more than a handle,
 *   and a reused buffer with new text is still looked up correctly.
 * - -DSCOPE_PROFILER_DISABLE turns the macros into nothing (the classes stay).
 *
 * Nothing here throws except setup() and finalize(), which turn a failing
 * status into scope_profiler::error (code() is the SP_E* status).
 */
#ifndef SCOPE_PROFILER_HPP
#define SCOPE_PROFILER_HPP

#include <scope_profiler.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace scope_profiler
{

/* A failed setup() or finalize(): what() is sp_last_error(), code() the
 * SP_E* status. */
class error : public std::runtime_error
{
  public:
    error(int code, const char *what) : std::runtime_error(what), code_(code) {}
    int code() const noexcept { return code_; }

  private:
    int code_;
};

/* sp_setup(o) (o == nullptr: the defaults); throws error on failure. */
inline void setup(const sp_options *o = nullptr)
{
    int rc = ::sp_setup(o);
    if (rc != SP_OK)
        throw error(rc, ::sp_last_error());
}

/* sp_finalize(verbose, results); throws error on failure, except that
 * unbalanced regions (SP_EUNBALANCED: the file is written) are returned as
 * the status so the caller decides. */
inline int finalize(bool verbose = true, sp_run **results = nullptr)
{
    int rc = ::sp_finalize(verbose, results);
    if (rc != SP_OK && rc != SP_EUNBALANCED)
        throw error(rc, ::sp_last_error());
    return rc;
}

/* A region handle: cheap to copy, valid for the life of the process. */
class region
{
  public:
    explicit region(const char *name) noexcept : h_(::sp_region_get(name)) {}
    explicit region(const std::string &name) noexcept : region(name.c_str()) {}
    explicit region(sp_region *h) noexcept : h_(h) {}

    void begin() const noexcept { ::sp_region_begin(h_); }
    void end() const noexcept { ::sp_region_end(h_); }
    const char *name() const noexcept { return ::sp_region_name(h_); }
    std::uint64_t num_calls() const noexcept { return ::sp_region_num_calls(h_); }
    sp_region *handle() const noexcept { return h_; }

  private:
    sp_region *h_;
};

namespace detail
{

/* Whether a session records (the flag the C macros read). With
 * SCOPE_PROFILER_DISABLE the classes still work, through the library's
 * recording table, which records nothing without a session. */
inline bool recording() noexcept
{
#if defined(SCOPE_PROFILER_DISABLE)
    return true;
#else
    return __atomic_load_n(&::sp__recording, __ATOMIC_RELAXED) != 0;
#endif
}

/* name -> handle through a per-thread direct-mapped cache keyed by the
 * pointer and checked against the text (a buffer may be reused). */
inline sp_region *lookup(const char *name) noexcept
{
    struct entry {
        const char *key;
        sp_region *r;
    };
    static thread_local entry cache[64];
    const auto k = reinterpret_cast<std::uintptr_t>(name);
    entry &e = cache[((k >> 4) ^ (k >> 10)) & 63];
    if (e.key == name && e.r && std::strcmp(::sp_region_name(e.r), name) == 0)
        return e.r;
    sp_region *r = ::sp_region_get(name);
    e = entry{name, r};
    return r;
}

/* "ns::Solver::step" from GCC/Clang's __PRETTY_FUNCTION__
 * ("void ns::Solver::step(int) const"); `plain` (__func__) when it cannot
 * be taken apart (lambdas). */
inline std::string qualified_name(const char *pretty, const char *plain)
{
    std::string s(pretty ? pretty : "");
    std::size_t with = s.find(" [with ");
    if (with != std::string::npos)
        s.erase(with);
    std::size_t close = s.rfind(')');
    if (close == std::string::npos)
        return plain;
    int depth = 0;
    std::size_t open = close + 1;
    for (std::size_t i = close + 1; i-- > 0;) {
        if (s[i] == ')')
            depth++;
        else if (s[i] == '(' && --depth == 0) {
            open = i;
            break;
        }
    }
    if (open > close)
        return plain;
    int angle = 0;
    std::size_t start = 0;
    for (std::size_t i = open; i-- > 0;) {
        if (s[i] == '>')
            angle++;
        else if (s[i] == '<' && angle > 0)
            angle--;
        else if (s[i] == ' ' && angle == 0) {
            start = i + 1;
            break;
        }
    }
    std::string name = s.substr(start, open - start);
    while (!name.empty() && (name[0] == '*' || name[0] == '&'))
        name.erase(0, 1);
    if (name.empty() || name.find('(') != std::string::npos ||
        name.find("<lambda") != std::string::npos)
        return plain;
    return name;
}

inline sp_region *function_region(const char *pretty, const char *plain) noexcept
{
    try {
        return ::sp_region_get(qualified_name(pretty, plain).c_str());
    } catch (...) { /* std::bad_alloc: the unqualified name */
        return ::sp_region_get(plain);
    }
}

} /* namespace detail */

/* One call of a region from construction to destruction (RAII). Created
 * while no session records, it records nothing (and ends nothing). */
class scope
{
  public:
    explicit scope(sp_region *r) noexcept : r_(detail::recording() ? r : nullptr)
    {
        if (r_)
            ::sp_region_begin(r_);
    }
    explicit scope(const region &r) noexcept : scope(r.handle()) {}
    explicit scope(const char *name) noexcept
        : scope(detail::recording() ? detail::lookup(name) : nullptr)
    {
    }
    explicit scope(const std::string &name) noexcept : scope(name.c_str()) {}
    ~scope()
    {
        if (r_)
            ::sp_region_end(r_);
    }
    scope(const scope &) = delete;
    scope &operator=(const scope &) = delete;

  private:
    sp_region *r_;
};

/* As scope, and the functions called inside (compiled with
 * -finstrument-functions) are traced as regions "<module>.<function>". */
class recursive_scope
{
  public:
    explicit recursive_scope(sp_region *r) noexcept : r_(detail::recording() ? r : nullptr)
    {
        if (r_)
            ::sp_region_begin_recursive(r_);
    }
    explicit recursive_scope(const region &r) noexcept : recursive_scope(r.handle()) {}
    explicit recursive_scope(const char *name) noexcept
        : recursive_scope(detail::recording() ? detail::lookup(name) : nullptr)
    {
    }
    ~recursive_scope()
    {
        if (r_)
            ::sp_region_end_recursive(r_);
    }
    recursive_scope(const recursive_scope &) = delete;
    recursive_scope &operator=(const recursive_scope &) = delete;

  private:
    sp_region *r_;
};

namespace detail
{
/* The body of SP_SCOPE runs once: a `for` whose condition is true once. */
template <class Scope> class once : public Scope
{
  public:
    explicit once(sp_region *r) noexcept : Scope(r) {}
    bool next() noexcept { return first_ ? (first_ = false, true) : false; }

  private:
    bool first_ = true;
};
} /* namespace detail */

} /* namespace scope_profiler */

/* ------------------------------------------------------------- the macros */

#undef SP_SCOPE
#undef SP_FUNCTION
#undef SP_SCOPE_RECURSIVE
#undef SP_FUNCTION_RECURSIVE

#if defined(SCOPE_PROFILER_DISABLE)

#define SP_SCOPE(name) if (true)
#define SP_FUNCTION() static_cast<void>(0)
#define SP_SCOPE_RECURSIVE(name) if (true)
#define SP_FUNCTION_RECURSIVE() static_cast<void>(0)

#else

/* The call site's handle: a lambda's function-local static is one per call
 * site, initialised once (thread-safe) with the first name. */
#define SP__CPP_SITE(name)                                                                         \
    ([](const char *sp__n) noexcept -> ::sp_region * {                                             \
        static ::sp_region *const sp__h = ::sp_region_get(sp__n);                                  \
        return sp__h;                                                                              \
    }(name))

/* SP_SCOPE("name") { ... }: one statement (a `for` run once), so a break or
 * continue directly inside its block leaves the block only, as in C. */
#define SP_SCOPE(name)                                                                             \
    for (::scope_profiler::detail::once<::scope_profiler::scope> SP__ID(sp__scope_)(               \
             SP__CPP_SITE(name));                                                                  \
         SP__ID(sp__scope_).next();)

#define SP_SCOPE_RECURSIVE(name)                                                                   \
    for (::scope_profiler::detail::once<::scope_profiler::recursive_scope> SP__ID(sp__scope_)(     \
             SP__CPP_SITE(name));                                                                  \
         SP__ID(sp__scope_).next();)

/* SP_FUNCTION(): from here to the end of the enclosing block. */
#define SP_FUNCTION()                                                                              \
    static ::sp_region *const SP__ID(sp__fn_region_) =                                             \
        ::scope_profiler::detail::function_region(__PRETTY_FUNCTION__, __func__);                  \
    ::scope_profiler::scope SP__ID(sp__fn_scope_)(SP__ID(sp__fn_region_))

#define SP_FUNCTION_RECURSIVE()                                                                    \
    static ::sp_region *const SP__ID(sp__fn_region_) =                                             \
        ::scope_profiler::detail::function_region(__PRETTY_FUNCTION__, __func__);                  \
    ::scope_profiler::recursive_scope SP__ID(sp__fn_scope_)(SP__ID(sp__fn_region_))

#endif /* SCOPE_PROFILER_DISABLE */

#endif /* SCOPE_PROFILER_HPP */

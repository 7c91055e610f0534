/* SPDX-License-Identifier: MIT */
/*
 * sp_source.h - which source files a run may show, and reading them without
 * ever blocking (internal; `scope-profiler line-profile` and the viewer's
 * Lines page use it).
 *
 * A run's line samples name source files, and a run can come from anyone:
 * a crafted file may name /etc/shadow, ~/.ssh/id_rsa, a FIFO, /dev/zero or a
 * symbolic link out of a project. A file named by a run is shown only when
 * all of these hold:
 *
 * - after resolving every symbolic link (realpath), it lies below a source
 *   root: a directory the user gave (--source-dir, the viewer's setting,
 *   SCOPE_PROFILER_SOURCE_DIR), or the run's recorded working directory
 *   when the run file itself lies in that directory or below it (a run saved
 *   where it was recorded; a downloaded file cannot vouch for "/etc"); "/"
 *   is never a root taken from a file;
 * - no component below the root is hidden (".ssh", ".git", ...);
 * - opened with O_NONBLOCK | O_NOFOLLOW, it is a regular file (fstat after
 *   open: never a FIFO, device or directory), still the file that was
 *   resolved (/proc/self/fd), at most SP_SOURCE_MAX_BYTES, and text (no NUL).
 *
 * Relative names are looked up below the recorded working directory, then
 * below each source root. Anything refused comes with a short reason that
 * callers show next to the path, with "not shown".
 */
#ifndef SP_SOURCE_H
#define SP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_SOURCE_MAX_BYTES ((size_t)16 << 20)
#define SP_SOURCE_DIR_ENV "SCOPE_PROFILER_SOURCE_DIR" /* ':'-separated roots */

typedef struct sp_source_policy {
    char *working_dir;  /* as recorded (relative names are joined to it), or NULL */
    char **roots;       /* resolved, allowed directories */
    size_t nroots;
    bool wd_trusted;    /* roots[0] is the recorded working directory */
    size_t max_bytes;
} sp_source_policy;

/*
 * Set up the policy for one run: run_path is the file the run was read from
 * (NULL: none, so its working directory is never trusted), working_dir the
 * run's "working_directory" metadata (may be NULL), dirs[0..ndirs) the
 * directories the user gave (may be 0), plus SCOPE_PROFILER_SOURCE_DIR.
 * Directories that do not exist are left out. 0 or SP_ENOMEM.
 */
int sp_source_policy_init(sp_source_policy *p, const char *run_path, const char *working_dir,
                          const char *const *dirs, size_t ndirs);
void sp_source_policy_free(sp_source_policy *p);

/*
 * Read the source file `recorded` (as a run names it) under the policy.
 * 0 with *text (malloc'ed, NUL-terminated, *len bytes; the caller frees),
 * or a negative SP_E* code with *why set to a short static reason
 * ("outside the run's working directory and the source directories", "not a
 * regular file", "larger than 16 MiB", "not found", ...). Never blocks on a
 * FIFO or device, never follows a link out of a root.
 */
int sp_source_read(const sp_source_policy *p, const char *recorded, char **text, size_t *len,
                   const char **why);

#ifdef __cplusplus
}
#endif

#endif /* SP_SOURCE_H */

/* SPDX-License-Identifier: MIT */
/*
 * sp-source-cache.h - the source files of a run's line samples, each read
 * once, in a worker thread (a file on a slow or network file system must not
 * freeze the window). Which files may be shown, and how they are opened
 * (never a FIFO or device, never outside the run's working directory or the
 * source directories the user gave), is the policy of sp_source.h; a file
 * refused keeps the reason, which the Lines page shows. Emits "changed" on
 * the main thread when files have been read (or refused).
 */
#ifndef SP_SOURCE_CACHE_H
#define SP_SOURCE_CACHE_H

#include <gio/gio.h>

G_BEGIN_DECLS

#define SP_TYPE_SOURCE_CACHE (sp_source_cache_get_type())
G_DECLARE_FINAL_TYPE(SpSourceCache, sp_source_cache, SP, SOURCE_CACHE, GObject)

/* run_path: the file the run was read from (NULL for an in-memory run);
 * working_dir: its recorded working directory (may be NULL); source_dirs:
 * NULL-terminated directories the user allows (may be NULL). */
SpSourceCache *sp_source_cache_new(const char *run_path, const char *working_dir,
                                   const char *const *source_dirs);

/* Start reading the files of files (a NULL-terminated list; duplicates, ""
 * and files read or being read are skipped). */
void sp_source_cache_request(SpSourceCache *self, const char *const *files);

/* TRUE once file has been read or refused; *text is then line lineno
 * (1-based, owned by the cache), or NULL with *why the reason it is not
 * shown (static; NULL when no file name or line was recorded). */
gboolean sp_source_cache_lookup(SpSourceCache *self, const char *file, int lineno,
                                const char **text, const char **why);

G_END_DECLS

#endif

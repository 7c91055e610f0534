/* SPDX-License-Identifier: MIT */
/*
 * sp-source-cache.h - the source files of a run's line samples, each read
 * once, in a worker thread (a file on a slow or network file system must not
 * freeze the window). Paths are tried as recorded, then relative to the
 * run's working directory. Emits "changed" on the main thread when files
 * have been read (or found unreadable).
 */
#ifndef SP_SOURCE_CACHE_H
#define SP_SOURCE_CACHE_H

#include <gio/gio.h>

G_BEGIN_DECLS

#define SP_TYPE_SOURCE_CACHE (sp_source_cache_get_type())
G_DECLARE_FINAL_TYPE(SpSourceCache, sp_source_cache, SP, SOURCE_CACHE, GObject)

/* working_dir: where relative paths are looked up (may be NULL). */
SpSourceCache *sp_source_cache_new(const char *working_dir);

/* Start reading the files of files (a NULL-terminated list; duplicates, ""
 * and files read or being read are skipped). */
void sp_source_cache_request(SpSourceCache *self, const char *const *files);

/* TRUE once file has been read or found unreadable; *text is then line
 * lineno (1-based, owned by the cache) or NULL (no such file or line). */
gboolean sp_source_cache_lookup(SpSourceCache *self, const char *file, int lineno,
                                const char **text);

G_END_DECLS

#endif

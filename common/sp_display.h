/* SPDX-License-Identifier: MIT */
/*
 * sp_display.h - text from a run file made safe to show (internal, shared by
 * the CLI, TUI, plots and viewer).
 *
 * Names and metadata come from files written elsewhere; a region called
 * "\x1b]0;...\x07" or "\x1b[2J" would otherwise retitle or clear the user's
 * terminal. The run model keeps the bytes as read (exports reproduce them,
 * escaped per format); whatever shows text to a person escapes it here:
 *
 *   C0 controls and DEL  ->  \n \r \t, else \xNN   (e.g. ESC -> \x1b)
 *   C1 controls          ->  \u0080 .. \u009f
 *   bidi overrides       ->  \u202e etc. (they reorder the rest of a line)
 *   invalid UTF-8 bytes  ->  \xNN
 *
 * Everything else (printable ASCII and UTF-8, backslash included) is copied.
 * The CLI applies this to all of stdout and stderr (cli_output.c); plots/
 * to every chart label (sp_plot_text.c); the viewer to what it prints and
 * to every string from a file its widgets show (viewer/sp-viewer-text.h).
 */
#ifndef SP_DISPLAY_H
#define SP_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of sp_display_escape_bytes(). */
#define SP_DISPLAY_KEEP_NEWLINE 1u /* copy \n and \t as they are (streams) */
#define SP_DISPLAY_PARTIAL 2u      /* more bytes follow: leave an incomplete
                                      UTF-8 sequence at the end unconsumed */

/* Escape src[0..len) into dst, which must hold 4 * len bytes (the most any
 * input can need; no NUL is written). Returns the bytes written; *used (may
 * be NULL) receives the input bytes consumed (len, except with
 * SP_DISPLAY_PARTIAL). */
size_t sp_display_escape_bytes(char *dst, const char *src, size_t len, unsigned flags,
                               size_t *used);

/* The UTF-8 sequence at s (NUL-terminated): its length in bytes (1-4) and
 * *cp, or 0 when the bytes are not valid UTF-8 (one bad byte). */
size_t sp_display_utf8_next(const char *s, uint32_t *cp);

/* Whether code point cp (>= U+0080) is one that every surface escapes: a
 * C1 control or a bidirectional formatting character (U+061C, U+200E/F,
 * U+202A-E, U+2066-9), which reorders what follows it on a line. Formats
 * with escapes of their own use theirs (JSON: "\u202e"); the others show
 * the escaped form above. */
bool sp_display_cp_escaped(uint32_t cp);

/* Whether s (NUL-terminated, NULL counts as safe) needs no escaping. */
bool sp_display_is_safe(const char *s);

/* A malloc'ed escaped copy of s (NULL is ""); NULL when out of memory. */
char *sp_display_dup(const char *s);

/* Escape s into dst[0..cap) (NUL-terminated; cut at a character boundary
 * when it does not fit). Returns dst. */
char *sp_display_copy(char *dst, size_t cap, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* SP_DISPLAY_H */

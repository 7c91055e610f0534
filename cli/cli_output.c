/* SPDX-License-Identifier: MIT */
/*
 * cli_output.c - stdout and stderr that never pass a control sequence from a
 * run file to the terminal.
 *
 * Every verb prints names, metadata, paths and error messages that come from
 * files written elsewhere. Rather than escaping at each of hundreds of
 * printf calls, main() replaces stdout and stderr by streams (fopencookie)
 * that escape what they carry with sp_display_escape_bytes(): newlines and
 * tabs pass, every other control character, C1 control, bidi override and
 * invalid byte is written as a visible escape (\x1b, \u009b, ...). Machine
 * formats written to stdout (JSON, HTML with "-o -") are already escaped by
 * their writers, so the filter leaves them unchanged.
 *
 * No sequence passes, colours included: no verb prints any, and a way to let
 * "ours" through is a way for a file to set black on black.
 */
#include "cli_common.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_display.h"

typedef struct safe_stream {
    int fd;
    char pending[16]; /* the start of a character cut by the end of a write */
    size_t npending;
} safe_stream;

static safe_stream out_state = {1, {0}, 0}, err_state = {2, {0}, 0};

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Escape and write data; keep an incomplete tail (a character cut by the end
 * of data) for the next call, unless final. */
static int emit(safe_stream *st, const char *data, size_t n, bool final)
{
    enum { CHUNK = 4096 };
    char out[4 * (CHUNK + 4)];
    size_t i = 0;
    while (i < n) {
        /* At most CHUNK bytes, never ending inside a UTF-8 sequence (so only
         * the end of data can cut a character). */
        size_t end = i + (n - i < CHUNK ? n - i : CHUNK);
        for (int k = 0; k < 3 && end < n && ((unsigned char)data[end] & 0xC0) == 0x80; k++)
            end++; /* a character has at most 3 continuation bytes */
        size_t used = 0;
        size_t k = sp_display_escape_bytes(
            out, data + i, end - i, SP_DISPLAY_KEEP_NEWLINE | (final ? 0 : SP_DISPLAY_PARTIAL),
            &used);
        if (k && write_all(st->fd, out, k) < 0)
            return -1;
        i += used;
        if (i < end) /* an incomplete character at the end of data */
            break;
    }
    st->npending = n - i;
    if (st->npending > sizeof st->pending) { /* cannot happen: tails are < 16 bytes */
        st->npending = 0;
        return -1;
    }
    memmove(st->pending, data + i, st->npending);
    return 0;
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
    safe_stream *st = cookie;
    int rc;
    if (st->npending == 0) {
        rc = emit(st, buf, size, false);
    } else { /* join the cut tail with the new bytes */
        char small[4096];
        size_t n = st->npending + size;
        char *joined = n <= sizeof small ? small : malloc(n);
        if (!joined) { /* flush the tail as it is, then go on */
            char tail[sizeof st->pending];
            size_t t = st->npending;
            memcpy(tail, st->pending, t);
            rc = emit(st, tail, t, true);
            if (rc == 0)
                rc = emit(st, buf, size, false);
        } else {
            memcpy(joined, st->pending, st->npending);
            memcpy(joined + st->npending, buf, size);
            rc = emit(st, joined, n, false);
            if (joined != small)
                free(joined);
        }
    }
    return rc < 0 ? -1 : (ssize_t)size;
}

static int cookie_close(void *cookie)
{
    safe_stream *st = cookie;
    char tail[sizeof st->pending];
    size_t n = st->npending;
    memcpy(tail, st->pending, n);
    st->npending = 0;
    return n && emit(st, tail, n, true) < 0 ? EOF : 0;
}

static FILE *safe_open(safe_stream *st, int mode)
{
    cookie_io_functions_t io = {.read = NULL, .write = cookie_write, .seek = NULL,
                                .close = cookie_close};
    FILE *f = fopencookie(st, "w", io);
    if (f)
        setvbuf(f, NULL, mode, mode == _IONBF ? 0 : BUFSIZ);
    return f;
}

void sp__cli_protect_output(bool protect_stdout)
{
    static bool done;
    if (done)
        return;
    done = true;
    /* stderr unbuffered as before; stdout line-buffered on a terminal. */
    FILE *e = safe_open(&err_state, _IONBF);
    if (e)
        stderr = e;
    if (!protect_stdout)
        return;
    fflush(stdout);
    FILE *o = safe_open(&out_state, isatty(1) ? _IOLBF : _IOFBF);
    if (o)
        stdout = o;
}

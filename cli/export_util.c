/* SPDX-License-Identifier: MIT */
/* export_util.c - output files, directories, JSON and CSV escaping. */
#include "export.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_agg.h"
#include "sp_analysis_internal.h"
#include "sp_display.h"
#include "sp_error.h"
#include "sp_numfmt.h"
#include "sp_display.h"
#include "sp_outfile.h"

int sp__out_open(sp__out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    int rc = sp_outfile_open(&o->file, path);
    o->f = o->file.f;
    return rc;
}

int sp__out_close(sp__out *o, bool ok)
{
    if (!o->f)
        return 0;
    int rc = 0;
    if (o->f == stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = sp__error(SP_EIO, "cannot write the output: %s", strerror(errno));
        o->f = NULL;
        return rc;
    }
    o->f = NULL;
    return sp_outfile_close(&o->file, ok);
}

int sp__write_file(const char *path, sp__body_fn body, const sp_run *run, const void *ctx,
                   sp__wrote_fn wrote)
{
    sp__out o;
    int rc = sp__out_open(&o, path);
    if (rc)
        return rc;
    bool to_stdout = o.f == stdout;
    rc = body(run, o.f, ctx);
    int crc = sp__out_close(&o, rc == 0);
    rc = rc ? rc : crc;
    if (!rc && wrote && !to_stdout)
        wrote(path);
    return rc;
}

int sp__write_in_dir(const char *dir, const char *name, sp__body_fn body, const sp_run *run,
                     const void *ctx, sp__wrote_fn wrote)
{
    char *path = sp__path_join(dir, name);
    if (!path)
        return sp__error(SP_ENOMEM, "out of memory");
    int rc = sp__write_file(path, body, run, ctx, wrote);
    free(path);
    return rc;
}

int sp__export_each_call(const sp__export *x, sp__call_fn fn, void *ud)
{
    int rc = 0;
    for (size_t r = 0; rc == 0 && r < x->run->nranks; r++)
        rc = sp__stream_rank_calls(x->src, x->run->agg, r, &x->calls, fn, ud);
    return rc;
}

int sp__mkdir_p(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return sp__error(SP_ENOMEM, "out of memory");
    for (char *s = p + 1;; s++) {
        bool end = *s == '\0';
        if (*s == '/' || end) {
            char keep = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int rc = sp__error(SP_EIO, "cannot create directory '%s': %s", p, strerror(errno));
                free(p);
                return rc;
            }
            *s = keep;
        }
        if (end)
            break;
    }
    struct stat st;
    int rc = 0;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = sp__error(SP_EIO, "'%s' exists and is not a directory", path);
    free(p);
    return rc;
}

char *sp__path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    return sp__strdup_printf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

size_t sp__utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    /* No overlong forms, surrogates or code points past U+10FFFF. */
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

void sp__json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\n':
                fputs("\\n", f);
                break;
            case '\r':
                fputs("\\r", f);
                break;
            case '\t':
                fputs("\\t", f);
                break;
            case '\b':
                fputs("\\b", f);
                break;
            case '\f':
                fputs("\\f", f);
                break;
            default:
                fprintf(f, "\\u%04x", c);
                break;
            }
            p++;
        } else {
            uint32_t cp = 0;
            size_t n = sp_display_utf8_next((const char *)p, &cp);
            if (n == 0) {
                fputs("\\ufffd", f);
                p++;
            } else if (sp_display_cp_escaped(cp)) {
                /* C1 controls and bidi controls as JSON escapes: the parsed
                 * string is the same, but a file shown as text (an editor,
                 * a terminal, a code review) cannot be reordered by them. */
                fprintf(f, "\\u%04x", (unsigned)cp);
                p += n;
            } else {
                fwrite(p, 1, n, f);
                p += n;
            }
        }
    }
    fputc('"', f);
}

void sp__json_num(FILE *f, double v)
{
    if (!isfinite(v))
        fputs("null", f);
    else {
        char buf[SP_NUMFMT_BUF];
        size_t n = v == floor(v) && fabs(v) < 9007199254740992.0 ? sp_numfmt_fixed(v, 0, buf)
                                                                  : sp_numfmt_general(v, 12, buf);
        fwrite(buf, 1, n, f);
    }
}

void sp__put_u64(FILE *f, uint64_t v)
{
    char buf[24];
    size_t n = sizeof buf;
    do {
        buf[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    fwrite(buf + n, 1, sizeof buf - n, f);
}

void sp__csv_fixed(FILE *f, double v, int prec)
{
    char buf[SP_NUMFMT_BUF + 1];
    buf[0] = ',';
    size_t n = sp_numfmt_fixed(v, prec, buf + 1);
    fwrite(buf, 1, n + 1, f);
}

/* Whether s is a plain number ("-5", "1.5e-3"): a spreadsheet reads it as
 * one, never as a formula, so it needs no neutralising. */
static bool is_number(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    (void)v;
    return end != s && *end == '\0' && errno == 0 && !strchr(s, 'x') && !strchr(s, 'X');
}

void sp__csv_str(FILE *f, const char *s)
{
    if (!s)
        return;
    /* Text from the run: control characters (but line breaks and tabs, which
     * quoting keeps) become visible escapes, as on the terminal. */
    size_t raw = strlen(s);
    char small[256];
    char *esc = 4 * raw + 2 <= sizeof small ? small : malloc(4 * raw + 2);
    if (!esc) {
        fputs("?", f);
        return;
    }
    size_t n = 0;
    /* A cell that starts like a formula (=, +, -, @, or a tab or CR that a
     * spreadsheet skips before one) is neutralised with a leading
     * apostrophe, as spreadsheet users expect (OWASP "CSV injection"); plain
     * numbers are left alone. */
    if ((s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' ||
         s[0] == '\r') &&
        !is_number(s))
        esc[n++] = '\'';
    n += sp_display_escape_bytes(esc + n, s, raw, SP_DISPLAY_KEEP_NEWLINE, NULL);
    esc[n] = '\0';
    bool quote = n && (esc[0] == ' ' || esc[n - 1] == ' ');
    for (size_t i = 0; i < n && !quote; i++)
        quote = esc[i] == ',' || esc[i] == '"' || esc[i] == '\r' || esc[i] == '\n';
    if (!quote) {
        fputs(esc, f);
    } else {
        fputc('"', f);
        for (size_t i = 0; i < n; i++) {
            if (esc[i] == '"')
                fputc('"', f);
            fputc(esc[i], f);
        }
        fputc('"', f);
    }
    if (esc != small)
        free(esc);
}

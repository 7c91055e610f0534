/* SPDX-License-Identifier: MIT */
/* tui_text.c - fitting text into terminal columns, durations, scrolled
 * lists for the TUI screens. */
#ifdef SP_HAVE_NCURSES
#include <curses.h>
#include <math.h>
#include <string.h>

#include "export.h"
#include "sp_analysis_internal.h"
#include "tui.h"

size_t sp__tui_fit(const sp__tui *t, char *dst, size_t n, const char *src, size_t cols)
{
    if (t->utf8)
        return sp__label_copy(dst, n, src ? src : "", cols);
    /* ASCII terminal: one byte is one column; anything else is '?'. */
    size_t k = 0, len = src ? strlen(src) : 0;
    bool cut = len > cols;
    for (size_t i = 0; i < len && k + 1 < n && k < cols; i++) {
        unsigned char c = (unsigned char)src[i];
        if (c >= 0x80) { /* skip the continuation bytes of a sequence */
            size_t s = sp__utf8_seq((const unsigned char *)src + i);
            i += s ? s - 1 : 0;
            c = '?';
        }
        dst[k++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (cut && k > 0)
        dst[k - 1] = '~';
    dst[k] = '\0';
    return k;
}

void sp__tui_put(const sp__tui *t, int y, int x, const char *s, size_t cols)
{
    char buf[1024];
    size_t w = sp__tui_fit(t, buf, sizeof buf, s, cols);
    mvaddstr(y, x, buf);
    for (; w < cols; w++)
        addch(' ');
}

char *sp__tui_dur(const sp__tui *t, double s, char *buf, size_t n)
{
    double a = fabs(s), v = s;
    const char *unit = "s";
    if (a == 0) {
        snprintf(buf, n, "0 s");
        return buf;
    }
    if (a < 1e-6)
        v = s * 1e9, unit = "ns";
    else if (a < 1e-3)
        v = s * 1e6, unit = t->utf8 ? "\xc2\xb5s" : "us";
    else if (a < 1)
        v = s * 1e3, unit = "ms";
    double av = fabs(v);
    snprintf(buf, n, "%.*f %s", av >= 100 ? 0 : av >= 10 ? 1 : 2, v, unit);
    return buf;
}

void sp__tui_list_clamp(sp__tui_list *l, long n, long h)
{
    if (h < 1)
        h = 1;
    if (l->cursor >= n)
        l->cursor = n - 1;
    if (l->cursor < 0)
        l->cursor = 0;
    if (l->top > l->cursor)
        l->top = l->cursor;
    if (l->cursor >= l->top + h)
        l->top = l->cursor - h + 1;
    if (l->top > n - h)
        l->top = n - h;
    if (l->top < 0)
        l->top = 0;
}

bool sp__tui_list_key(sp__tui_list *l, int key, long n, long h)
{
    switch (key) {
    case KEY_UP:
    case 'k':
        l->cursor--;
        break;
    case KEY_DOWN:
    case 'j':
        l->cursor++;
        break;
    case KEY_PPAGE:
        l->cursor -= h > 1 ? h - 1 : 1;
        break;
    case KEY_NPAGE:
        l->cursor += h > 1 ? h - 1 : 1;
        break;
    case KEY_HOME:
    case 'g':
        l->cursor = 0;
        break;
    case KEY_END:
    case 'G':
        l->cursor = n - 1;
        break;
    default:
        return false;
    }
    sp__tui_list_clamp(l, n, h);
    return true;
}
#endif

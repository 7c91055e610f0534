/* SPDX-License-Identifier: MIT */
/*
 * sp_text.c - UTF-8 display width, table labels and rounded boxes.
 *
 * wcwidth() depends on the process locale (a library must not call
 * setlocale), so the width is computed here from a small table after Markus
 * Kuhn's wcwidth: the common combining ranges are 0 columns, East Asian wide
 * and fullwidth ranges and emoji are 2, everything else printable is 1.
 */
#include "sp_analysis_internal.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct cp_range {
    uint32_t first, last;
} cp_range;

static const cp_range zero_width[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD},   {0x05BF, 0x05BF}, {0x05C1, 0x05C2},
    {0x05C4, 0x05C5}, {0x05C7, 0x05C7}, {0x0610, 0x061A},   {0x064B, 0x065F}, {0x0670, 0x0670},
    {0x06D6, 0x06DC}, {0x06DF, 0x06E4}, {0x06E7, 0x06E8},   {0x06EA, 0x06ED}, {0x0900, 0x0902},
    {0x093A, 0x093A}, {0x093C, 0x093C}, {0x0941, 0x0948},   {0x094D, 0x094D}, {0x0951, 0x0957},
    {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E},   {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF},
    {0x200B, 0x200F}, {0x202A, 0x202E}, {0x2060, 0x2064},   {0x20D0, 0x20FF}, {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF}, {0xE0100, 0xE01EF},
};

static const cp_range double_width[] = {
    {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},
    {0x23F0, 0x23F0},   {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},
    {0x2648, 0x2653},   {0x267F, 0x267F},   {0x2693, 0x2693},   {0x26A1, 0x26A1},
    {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},   {0x26CE, 0x26CE},
    {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
    {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},
    {0x2728, 0x2728},   {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},
    {0x2757, 0x2757},   {0x2795, 0x2797},   {0x27B0, 0x27B0},   {0x27BF, 0x27BF},
    {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},   {0x2E80, 0x303E},
    {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
    {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},
    {0xFE30, 0xFE6F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4},
    {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
    {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F2FF}, {0x1F300, 0x1F64F},
    {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB}, {0x1F90C, 0x1F9FF}, {0x1FA70, 0x1FAFF},
    {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
};

static int in_ranges(uint32_t cp, const cp_range *r, size_t n)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < r[mid].first)
            hi = mid;
        else if (cp > r[mid].last)
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

static int cp_width(uint32_t cp)
{
    if (cp < 0x300) /* Latin: no table lookup (a 16 MB value is mostly ASCII) */
        return 1;
    if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
        return 1; /* a bidi override is shown as '?' (sp__label_copy) */
    if (in_ranges(cp, zero_width, sizeof zero_width / sizeof *zero_width))
        return 0;
    if (in_ranges(cp, double_width, sizeof double_width / sizeof *double_width))
        return 2;
    return 1;
}

/* Decode one UTF-8 sequence at s. Returns its length in bytes (>= 1) and
 * sets *cp, or returns 0 for an invalid sequence (one bad byte). */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0; /* overlong, out of range or a surrogate */
    *cp = v;
    return len;
}

/* The display width of str, counted until it exceeds `stop`. */
static size_t width_upto(const char *str, size_t stop)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t w = 0;
    while (*s && w <= stop) {
        uint32_t cp;
        size_t len = utf8_decode(s, &cp);
        if (len == 0) {
            w += 1;
            s += 1;
        } else {
            w += (size_t)cp_width(cp);
            s += len;
        }
    }
    return w;
}

size_t sp__utf8_width(const char *str)
{
    return width_upto(str, SIZE_MAX);
}

bool sp__utf8_wider_than(const char *str, size_t cols)
{
    return width_upto(str, cols) > cols;
}

/* One character of a label as shown: its bytes in the source (*adv), the
 * bytes shown (an invalid byte, a control character or a bidi control
 * becomes '?') and their width. */
typedef struct label_unit {
    const unsigned char *bytes;
    size_t len, adv;
    int cw;
} label_unit;

static label_unit next_unit(const unsigned char *s)
{
    label_unit u;
    uint32_t cp;
    size_t len = utf8_decode(s, &cp);
    if (len == 0 || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
        (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) {
        u = (label_unit){(const unsigned char *)"?", 1, len ? len : 1, 1};
    } else {
        u = (label_unit){s, len, len, cp_width(cp)};
    }
    return u;
}

typedef struct label_out {
    char *dst;
    size_t size, o, w;
} label_out;

/* Copy characters of s to out while the width stays within max_w and the
 * bytes leave `reserve` free; returns where it stopped in s. */
static const unsigned char *put_units(label_out *out, const unsigned char *s, size_t max_w,
                                      size_t reserve)
{
    while (*s) {
        label_unit u = next_unit(s);
        if (out->w + (size_t)u.cw > max_w || out->o + u.len + reserve > out->size)
            break;
        memcpy(out->dst + out->o, u.bytes, u.len);
        out->o += u.len;
        out->w += (size_t)u.cw;
        s += u.adv;
    }
    return s;
}

static const char ellipsis[] = "…"; /* 3 bytes, 1 column */

static void put_ellipsis(label_out *out)
{
    if (out->o + sizeof ellipsis <= out->size) {
        memcpy(out->dst + out->o, ellipsis, sizeof ellipsis - 1);
        out->o += sizeof ellipsis - 1;
        out->w += 1;
    }
}

size_t sp__label_copy_end(char *dst, size_t dstsize, const char *src, size_t max_cols)
{
    if (dstsize == 0)
        return 0;
    if (max_cols < 1)
        max_cols = 1;
    /* The text fits when its width is at most max_cols; otherwise keep
     * max_cols - 1 columns and the ellipsis. */
    bool cut = sp__utf8_wider_than(src, max_cols);
    label_out out = {dst, dstsize, 0, 0};
    /* room for the ellipsis only when the text is cut */
    const unsigned char *s = put_units(&out, (const unsigned char *)src,
                                       cut ? max_cols - 1 : max_cols, cut ? sizeof ellipsis : 1);
    if (*s)
        put_ellipsis(&out);
    dst[out.o] = '\0';
    return out.w;
}

size_t sp__label_copy(char *dst, size_t dstsize, const char *src, size_t max_cols)
{
    if (dstsize == 0 || max_cols < 3 || !sp__utf8_wider_than(src, max_cols))
        return sp__label_copy_end(dst, dstsize, src, max_cols);
    size_t full = sp__utf8_width(src);
    /* Both ends, the middle left out: "networkx.algo…_weight_function"
     * cannot be mistaken for "networkx.algo…_weight_functio<lambda>". The
     * head gets the odd column. */
    size_t tail = (max_cols - 1) / 2, head = max_cols - 1 - tail;
    label_out out = {dst, dstsize, 0, 0};
    const unsigned char *s = put_units(&out, (const unsigned char *)src, head, sizeof ellipsis);
    size_t rest = full - out.w; /* columns after the head */
    put_ellipsis(&out);
    /* Skip to where the rest of the text is at most `tail` columns wide. */
    while (*s && rest > tail) {
        label_unit u = next_unit(s);
        rest -= (size_t)u.cw;
        s += u.adv;
    }
    put_units(&out, s, out.w + tail, 1);
    dst[out.o] = '\0';
    return out.w;
}

void sp__put_repeat(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputs(s, out);
}

void sp__put_padded(FILE *out, const char *s, size_t width)
{
    size_t w = sp__utf8_width(s);
    fputs(s, out);
    sp__put_repeat(out, " ", w < width ? width - w : 0);
}

void sp__print_box(FILE *out, const char *title, const char *const *lines, size_t n)
{
    size_t inner = 0; /* content width, without the "│ " and " │" */
    for (size_t i = 0; i < n; i++) {
        if (lines[i]) {
            size_t w = sp__utf8_width(lines[i]);
            if (w > inner)
                inner = w;
        }
    }
    size_t tw = title ? sp__utf8_width(title) + 3 : 0; /* "─ " + title + " " */
    if (tw > inner + 2)
        inner = tw - 2;

    fputs("╭", out);
    if (title) {
        fprintf(out, "─ %s ", title);
    }
    sp__put_repeat(out, "─", inner + 2 - tw);
    fputs("╮\n", out);
    for (size_t i = 0; i < n; i++) {
        if (!lines[i]) {
            fputs("├", out);
            sp__put_repeat(out, "─", inner + 2);
            fputs("┤\n", out);
            continue;
        }
        fputs("│ ", out);
        sp__put_padded(out, lines[i], inner);
        fputs(" │\n", out);
    }
    fputs("╰", out);
    sp__put_repeat(out, "─", inner + 2);
    fputs("╯\n", out);
}

char *sp__strdup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

char *sp__display_dup(const char *s)
{
    size_t size = strlen(s) + 1; /* '?' replaces bytes one for one */
    char *d = malloc(size);
    if (d)
        sp__label_copy(d, size, s, SIZE_MAX);
    return d;
}

void sp__put_wrapped(FILE *out, const char *text, size_t width)
{
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, "\n"), cut = len;
        if (len > width) {
            cut = width;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = width;
        }
        fprintf(out, "%.*s\n", (int)cut, p);
        p += cut;
        if (cut == len) { /* the whole line: step over its "\n" */
            if (*p == '\n')
                p++;
        } else {
            while (*p == ' ')
                p++;
        }
    }
}

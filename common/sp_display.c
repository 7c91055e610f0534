/* SPDX-License-Identifier: MIT */
/* sp_display.c - escaping text from run files before a person sees it. */
#include "sp_display.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the UTF-8 sequence at s[0..avail) (1..4) and its code point, 0
 * when the bytes are not valid UTF-8 (overlong, surrogate, > U+10FFFF, stray
 * continuation), or -1 when they are a valid but incomplete prefix. */
static int utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
    unsigned c = s[0];
    int n;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, *cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, *cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, *cp = c & 0x07;
    else
        return 0;
    for (int i = 1; i < n; i++) {
        if ((size_t)i >= avail)
            return -1;
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        *cp = (*cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && *cp < 0x800) || (n == 4 && (*cp < 0x10000 || *cp > 0x10FFFF)) ||
        (*cp >= 0xD800 && *cp <= 0xDFFF))
        return 0;
    return n;
}

/* Code points shown escaped: C1 controls and the bidirectional formatting
 * characters (embedding, override, isolate, marks), which reorder what
 * follows them on the line ("Trojan Source"). */
static bool escape_cp(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

bool sp_display_cp_escaped(uint32_t cp)
{
    return escape_cp(cp);
}

size_t sp_display_utf8_next(const char *s, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    if (!*p)
        return 0;
    /* The NUL ends any sequence early: "incomplete" counts as invalid. */
    int n = utf8_decode(p, strnlen(s, 4), cp);
    return n > 0 ? (size_t)n : 0;
}

size_t sp_display_escape_bytes(char *dst, const char *src, size_t len, unsigned flags,
                               size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0, o = 0;
    while (i < len) {
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x7F) {
            dst[o++] = (char)c;
            i++;
            continue;
        }
        if (c < 0x20 || c == 0x7F) {
            if ((c == '\n' || c == '\t') && (flags & SP_DISPLAY_KEEP_NEWLINE)) {
                dst[o++] = (char)c;
            } else if (c == '\n' || c == '\t' || c == '\r') {
                dst[o++] = '\\';
                dst[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
            } else {
                dst[o++] = '\\';
                dst[o++] = 'x';
                dst[o++] = hex[c >> 4];
                dst[o++] = hex[c & 15];
            }
            i++;
            continue;
        }
        uint32_t cp = 0;
        int n = utf8_decode(s + i, len - i, &cp);
        if (n < 0 && (flags & SP_DISPLAY_PARTIAL))
            break; /* the rest of the character comes with the next bytes */
        if (n <= 0) { /* an invalid (or, at the very end, truncated) byte */
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 15];
            i++;
            continue;
        }
        if (escape_cp(cp)) { /* n >= 2 input bytes for 6 output bytes */
            o += (size_t)sprintf(dst + o, "\\u%04x", (unsigned)cp);
        } else {
            memcpy(dst + o, s + i, (size_t)n);
            o += (size_t)n;
        }
        i += (size_t)n;
    }
    if (used)
        *used = i;
    return o;
}

bool sp_display_is_safe(const char *s)
{
    if (!s)
        return true;
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        if (p[i] >= 0x20 && p[i] < 0x7F) {
            i++;
            continue;
        }
        uint32_t cp;
        int n = p[i] < 0x20 || p[i] == 0x7F ? 0 : utf8_decode(p + i, len - i, &cp);
        if (n <= 0 || escape_cp(cp))
            return false;
        i += (size_t)n;
    }
    return true;
}

char *sp_display_dup(const char *s)
{
    if (!s)
        s = "";
    size_t len = strlen(s);
    char *d = malloc(4 * len + 1);
    if (!d)
        return NULL;
    d[sp_display_escape_bytes(d, s, len, 0, NULL)] = '\0';
    return d;
}

char *sp_display_copy(char *dst, size_t cap, const char *s)
{
    if (cap == 0)
        return dst;
    size_t o = 0;
    const char *p = s ? s : "";
    size_t rest = strlen(p);
    char tmp[32];
    /* One character at a time, so the cut never splits an escape. */
    while (rest) {
        uint32_t cp;
        int n = utf8_decode((const unsigned char *)p, rest, &cp);
        size_t take = n > 0 ? (size_t)n : 1;
        size_t k = sp_display_escape_bytes(tmp, p, take, 0, NULL);
        if (o + k + 1 > cap)
            break;
        memcpy(dst + o, tmp, k);
        o += k;
        p += take;
        rest -= take;
    }
    dst[o] = '\0';
    return dst;
}

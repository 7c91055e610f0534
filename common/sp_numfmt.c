/* SPDX-License-Identifier: MIT */
/* sp_numfmt.c - printf's "%.Nf" and "%.Ng" with exact integer arithmetic
 * where 128 bits hold the scaled value (see sp_numfmt.h). */
#include "sp_numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

#define MAX_SCALE 22 /* 10^22 * 2^53 < 2^127 */

static const uint64_t pow10_u64[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

static u128 pow10_u128(int k)
{
    return k < 20 ? (u128)pow10_u64[k] : (u128)pow10_u64[19] * pow10_u64[k - 19];
}

/* a (finite, > 0) times 10^k (0 <= k <= MAX_SCALE), rounded to nearest,
 * ties to even, into *q, and its floor into *fl; false when the result
 * needs more than 120 bits. */
static bool scaled_round(double a, int k, u128 *q, u128 *fl)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int be = (int)((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((1ull << 52) - 1);
    int e;
    if (be == 0) {
        e = -1074;
    } else {
        m |= 1ull << 52;
        e = be - 1075;
    }
    u128 n = (u128)m * pow10_u128(k); /* < 2^53 * 10^22 < 2^127 */
    if (e >= 0) {
        if (e > 7 || (n >> (120 - e)) != 0)
            return false;
        *q = *fl = n << e;
        return true;
    }
    int s = -e;
    if (s >= 128) { /* n < 2^127 <= 2^(s - 1): below one half */
        *q = *fl = 0;
        return true;
    }
    u128 t = n >> s, r = n & (((u128)1 << s) - 1), half = (u128)1 << (s - 1);
    *fl = t;
    *q = t + (r > half || (r == half && (t & 1)));
    return true;
}

/* The decimal digits of x (< 10^19) into out, at least width of them
 * (zero padded); returns their number. */
static size_t digits_u64(uint64_t x, int width, char *out)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    while ((int)n < width)
        tmp[n++] = '0';
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

size_t sp_numfmt_fixed(double v, int prec, char *buf)
{
    double a = fabs(v);
    u128 q, fl;
    /* Below 2^53 the integer part fits 64 bits and the scaled value 120. */
    if (prec < 0 || prec > 17 || !(a > 0) || !(a < 9007199254740992.0) ||
        !scaled_round(a, prec, &q, &fl))
        return (size_t)snprintf(buf, SP_NUMFMT_BUF, "%.*f", prec, v);
    size_t n = 0;
    if (signbit(v))
        buf[n++] = '-';
    uint64_t ip = (uint64_t)(q / pow10_u64[prec]), fp = (uint64_t)(q % pow10_u64[prec]);
    n += digits_u64(ip, 1, buf + n);
    if (prec > 0) {
        buf[n++] = '.';
        n += digits_u64(fp, prec, buf + n);
    }
    buf[n] = '\0';
    return n;
}

size_t sp_numfmt_general(double v, int prec, char *buf)
{
    double a = fabs(v);
    int p = prec;
    if (p < 1 || p > 17 || !(a > 0) || !isfinite(a))
        return (size_t)snprintf(buf, SP_NUMFMT_BUF, "%.*g", prec, v);
    /* x: the decimal exponent of a (log10 is a guess, the digits decide). */
    int x = (int)floor(log10(a));
    u128 d = 0, fl = 0;
    bool ok = false;
    for (int tries = 0; tries < 3 && !ok; tries++) {
        int k = p - 1 - x;
        if (k < 0 || k > MAX_SCALE || !scaled_round(a, k, &d, &fl))
            break;
        /* x is right when a * 10^k has p digits before the point; rounded
         * it may then reach 10^p. */
        if (fl < pow10_u64[p - 1])
            x--;
        else if (fl >= pow10_u64[p])
            x++;
        else
            ok = true;
    }
    if (!ok)
        return (size_t)snprintf(buf, SP_NUMFMT_BUF, "%.*g", prec, v);
    if (d == pow10_u64[p]) { /* 9.99..5 rounded up: one more digit before the point */
        d = pow10_u64[p - 1];
        x++;
    }
    char dig[24];
    digits_u64((uint64_t)d, p, dig);
    int nd = p; /* digits kept: trailing zeros go (no '#' flag) */
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    size_t n = 0;
    if (signbit(v))
        buf[n++] = '-';
    if (x >= -4 && x < p) { /* style f, precision p - 1 - x */
        if (x >= 0) {
            int ipn = x + 1;
            memcpy(buf + n, dig, (size_t)ipn);
            n += (size_t)ipn;
            if (nd > ipn) {
                buf[n++] = '.';
                memcpy(buf + n, dig + ipn, (size_t)(nd - ipn));
                n += (size_t)(nd - ipn);
            }
        } else {
            buf[n++] = '0';
            buf[n++] = '.';
            for (int z = 0; z < -x - 1; z++)
                buf[n++] = '0';
            memcpy(buf + n, dig, (size_t)nd);
            n += (size_t)nd;
        }
    } else { /* style e, precision p - 1 */
        buf[n++] = dig[0];
        if (nd > 1) {
            buf[n++] = '.';
            memcpy(buf + n, dig + 1, (size_t)(nd - 1));
            n += (size_t)(nd - 1);
        }
        buf[n++] = 'e';
        buf[n++] = x < 0 ? '-' : '+';
        n += digits_u64((uint64_t)(x < 0 ? -x : x), 2, buf + n);
    }
    buf[n] = '\0';
    return n;
}

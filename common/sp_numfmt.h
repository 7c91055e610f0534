/* SPDX-License-Identifier: MIT */
/*
 * sp_numfmt.h - "%.Nf" and "%.Ng" of a double without printf, digit for
 * digit what glibc's printf prints (internal).
 *
 * Exports of 10^6 regions or calls format tens of millions of numbers, and
 * printf's arbitrary-precision decimal conversion was most of their time.
 * A double is m * 2^e exactly (m < 2^53); in the ranges below its scaled
 * value m * 10^k * 2^e fits 128 bits, so the decimal digits and the
 * rounding (to nearest, ties to even, as glibc in the default rounding
 * mode) are computed exactly with integers. Outside those ranges (and for
 * NaN, infinities, zeros) the functions call snprintf themselves, so every
 * value prints as printf would.
 */
#ifndef SP_NUMFMT_H
#define SP_NUMFMT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room every call below needs: a buffer of SP_NUMFMT_BUF bytes. */
#define SP_NUMFMT_BUF 400

/* "%.{prec}f" of v into buf (SP_NUMFMT_BUF bytes), 0 <= prec <= 17.
 * Returns the length written (terminated). */
size_t sp_numfmt_fixed(double v, int prec, char *buf);

/* "%.{prec}g" of v into buf (SP_NUMFMT_BUF bytes), 1 <= prec <= 17.
 * Returns the length written (terminated). */
size_t sp_numfmt_general(double v, int prec, char *buf);

#ifdef __cplusplus
}
#endif

#endif

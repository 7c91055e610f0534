/* SPDX-License-Identifier: MIT */
/* pb_wire.c - the protocol buffers wire format, written (see pb_wire.h). */
#include "pb_wire.h"

#include <stdlib.h>
#include <string.h>

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static bool reserve(sp__pb *pb, size_t more)
{
    if (pb->oom)
        return false;
    if (pb->n + more <= pb->cap)
        return true;
    size_t c = pb->cap ? pb->cap : 256;
    while (c < pb->n + more)
        c *= 2;
    uint8_t *b = realloc(pb->buf, c);
    if (!b) {
        pb->oom = true;
        return false;
    }
    pb->buf = b;
    pb->cap = c;
    return true;
}

static size_t varint_len(uint64_t v)
{
    size_t k = 1;
    while (v >= 0x80) {
        v >>= 7;
        k++;
    }
    return k;
}

static void put_varint(sp__pb *pb, uint64_t v)
{
    if (!reserve(pb, 10))
        return;
    while (v >= 0x80) {
        pb->buf[pb->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    pb->buf[pb->n++] = (uint8_t)v;
}

static void put_key(sp__pb *pb, uint32_t field, unsigned wire)
{
    put_varint(pb, (uint64_t)field << 3 | wire);
}

void sp__pb_reset(sp__pb *pb)
{
    pb->n = 0;
}

void sp__pb_free(sp__pb *pb)
{
    free(pb->buf);
    memset(pb, 0, sizeof *pb);
}

void sp__pb_varint(sp__pb *pb, uint32_t field, uint64_t v)
{
    put_key(pb, field, WIRE_VARINT);
    put_varint(pb, v);
}

void sp__pb_bytes(sp__pb *pb, uint32_t field, const void *data, size_t n)
{
    put_key(pb, field, WIRE_LEN);
    put_varint(pb, n);
    if (n && reserve(pb, n)) {
        memcpy(pb->buf + pb->n, data, n);
        pb->n += n;
    }
}

void sp__pb_string(sp__pb *pb, uint32_t field, const char *s)
{
    sp__pb_bytes(pb, field, s ? s : "", s ? strlen(s) : 0);
}

size_t sp__pb_begin(sp__pb *pb, uint32_t field)
{
    put_key(pb, field, WIRE_LEN);
    return pb->n; /* the length goes here, before the content */
}

void sp__pb_end(sp__pb *pb, size_t mark)
{
    if (pb->oom)
        return;
    size_t len = pb->n - mark, k = varint_len(len);
    if (!reserve(pb, k))
        return;
    memmove(pb->buf + mark + k, pb->buf + mark, len); /* messages are small: a packet */
    size_t end = pb->n + k;
    pb->n = mark;
    put_varint(pb, len);
    pb->n = end;
}

/* SPDX-License-Identifier: MIT */
/*
 * pb_wire.h - a small writer of the protocol buffers wire format (what
 * `export perfetto` needs, nothing more): varint and length-delimited
 * fields, and nested messages whose length is filled in when they end.
 *
 * Wire format (https://protobuf.dev/programming-guides/encoding/): a field
 * is a key, varint(field_number << 3 | wire_type), then its value: wire
 * type 0 a varint (7 bits a byte, low first, high bit = more), wire type 2
 * a varint length and that many bytes (strings, bytes, nested messages).
 * Unsigned integers and enums are plain varints; fields may come in any
 * order and a reader skips the ones it does not know.
 *
 * A buffer grows as needed; after an allocation failure every call is a
 * no-op and `oom` stays set (check it once, at the end of a message).
 */
#ifndef PB_WIRE_H
#define PB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sp__pb {
    uint8_t *buf;
    size_t n, cap;
    bool oom;
} sp__pb;

/* Empty the buffer (keeps its memory). */
void sp__pb_reset(sp__pb *pb);
void sp__pb_free(sp__pb *pb);

/* A varint field (wire type 0): uint32/uint64/enum/bool values. */
void sp__pb_varint(sp__pb *pb, uint32_t field, uint64_t v);

/* A length-delimited field (wire type 2) holding n bytes. */
void sp__pb_bytes(sp__pb *pb, uint32_t field, const void *data, size_t n);

/* A string field (its bytes, no terminator; NULL writes ""). */
void sp__pb_string(sp__pb *pb, uint32_t field, const char *s);

/* A nested message: begin returns a mark, end writes its length there.
 * Marks nest (end the innermost first). */
size_t sp__pb_begin(sp__pb *pb, uint32_t field);
void sp__pb_end(sp__pb *pb, size_t mark);

#endif

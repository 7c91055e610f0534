# SPDX-License-Identifier: MIT
"""Check that a PNG is a real picture, with the standard library only.

    png_check.py FILE [--min-size WxH] [--min-colors N] [--min-saturated N]
                      [--max-background F] [--hues N]

Decodes 8-bit RGB / RGBA non-interlaced PNGs (what cairo and Chromium
write), then checks: the size, the number of distinct colours (a blank or
text-only page has few), the number of saturated pixels (chart colours), the fraction of pixels equal to the most common
colour (the background), and the number of distinct hue sectors (of 12)
among saturated pixels (chroma: max - min channel > 50). Prints the figures; exits 1 with "FAIL: ..." when a
check fails.
"""
import argparse
import colorsys
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("FAIL: %s is not a PNG" % path)
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise SystemExit("FAIL: unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def stats(path):
    """(width, height, distinct colours, saturated pixels, hue sectors, background share)"""
    w, h, bpp, rows = decode(path)
    counts = {}
    for row in rows:
        for i in range(0, len(row), bpp):
            px = row[i:i + 3]
            counts[px] = counts.get(px, 0) + 1
    saturated, hues = 0, set()
    for px, n in counts.items():
        r, g, b = px
        if max(px) - min(px) > 50:
            saturated += n
            if n >= 20:
                hues.add(int(colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)[0] * 12) % 12)
    return w, h, len(counts), saturated, len(hues), max(counts.values()) / (w * h)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--min-size", default="1x1")
    ap.add_argument("--min-colors", type=int, default=0)
    ap.add_argument("--min-saturated", type=int, default=0)
    ap.add_argument("--max-background", type=float, default=1.0)
    ap.add_argument("--hues", type=int, default=0)
    a = ap.parse_args()
    w, h, ncolors, saturated, nhues, background = stats(a.file)
    print("%s: %dx%d, %d colours, %d saturated pixels, %d hue sectors, background %.1f%%"
          % (a.file, w, h, ncolors, saturated, nhues, 100 * background))
    mw, mh = (int(v) for v in a.min_size.split("x"))
    fails = []
    if w < mw or h < mh:
        fails.append("size %dx%d below %dx%d" % (w, h, mw, mh))
    if ncolors < a.min_colors:
        fails.append("only %d colours (want >= %d): blank?" % (ncolors, a.min_colors))
    if saturated < a.min_saturated:
        fails.append("only %d saturated pixels (want >= %d): no chart colours?"
                     % (saturated, a.min_saturated))
    if background > a.max_background:
        fails.append("background covers %.1f%% (max %.1f%%)"
                     % (100 * background, 100 * a.max_background))
    if nhues < a.hues:
        fails.append("only %d hue sectors (want >= %d)" % (nhues, a.hues))
    if fails:
        print("FAIL: " + "; ".join(fails))
        sys.exit(1)
    print("png check: ok")


if __name__ == "__main__":
    main()

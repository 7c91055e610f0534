# SPDX-License-Identifier: MIT
"""Check an HTML report of `scope-profiler report`.

    check_report.py REPORT.html [--contains REGEX]... [--absent REGEX]...
                    [--min-svg N] [--sections a,b,c]

Checks that the page is self-contained (no element loads anything: no src,
no <link>, no external href, no url(http...) or @import in styles), that it
parses, that ids are unique across the document (the inline SVGs would
otherwise borrow each other's glyphs), and that there are at least N inline
<svg> charts, a sortable table with its script, nested <details> for the
call tree (or its leaf rows) and the given sections, and that every "<" in
the text starts a tag (text is escaped); plus regexes on the raw text.
"""
import argparse
import re
import sys
from html.parser import HTMLParser


class Scan(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.dups, self.external = set(), [], []
        self.svg = self.details = self.scripts = self.sortable = 0
        self.sections = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            if a["id"] in self.ids:
                self.dups.append(a["id"])
            self.ids.add(a["id"])
        if tag == "svg":
            self.svg += 1
        if tag == "details":
            self.details += 1
        if tag == "section" and "id" in a:
            self.sections.add(a["id"])
        if tag == "script":
            self.scripts += 1
            if "src" in a:
                self.external.append("script src=%s" % a["src"])
        if tag == "table" and "sortable" in (a.get("class") or ""):
            self.sortable += 1
        if tag in ("link", "iframe", "object", "embed", "img", "audio", "video", "source"):
            self.external.append("<%s>" % tag)
        for k in ("src", "srcset", "data"):
            if k in a and tag != "script":
                self.external.append("%s=%s" % (k, a[k]))
        for k in ("href", "xlink:href"):
            v = a.get(k)
            if v is not None and not v.startswith("#"):
                self.external.append("%s=%s" % (k, v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--contains", action="append", default=[])
    ap.add_argument("--absent", action="append", default=[])
    ap.add_argument("--min-svg", type=int, default=1)
    ap.add_argument("--sections", default="overview,charts,regions,calltree,ranks,metadata")
    a = ap.parse_args()
    text = open(a.report, encoding="utf-8").read()
    s = Scan()
    s.feed(text)
    s.close()
    fails = []
    if s.external:
        fails.append("loads external resources: %s" % s.external[:5])
    if re.search(r"url\(\s*['\"]?(https?:|//)|@import", text):
        fails.append("style loads something")
    if s.dups:
        fails.append("duplicate ids: %s" % s.dups[:5])
    if s.svg < a.min_svg:
        fails.append("%d inline svg, want >= %d" % (s.svg, a.min_svg))
    if not s.sortable or not s.scripts:
        fails.append("no sortable table with its script")
    if not s.details and 'class="leaf"' not in text and "No calls recorded" not in text:
        fails.append("no call tree (<details> or leaf rows)")
    missing = set(x for x in a.sections.split(",") if x) - s.sections
    if missing:
        fails.append("sections missing: %s" % sorted(missing))
    # Every "<" of the text is a tag: "<0.001" or "a<b" in a cell must be
    # escaped (scripts and styles aside).
    body = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S)
    stray = re.findall(r".{0,30}<(?![a-zA-Z/!?]).{0,10}", body)
    if stray:
        fails.append("unescaped '<' in text: %r" % stray[:3])
    for rx in a.contains:
        if not re.search(rx, text):
            fails.append("lacks /%s/" % rx)
    for rx in a.absent:
        if re.search(rx, text):
            fails.append("has /%s/" % rx)
    print("%s: %d bytes, %d svg, %d details, %d ids" % (a.report, len(text), s.svg, s.details,
                                                         len(s.ids)))
    if fails:
        print("FAIL: " + "; ".join(fails))
        sys.exit(1)
    print("cli case: ok")


main()

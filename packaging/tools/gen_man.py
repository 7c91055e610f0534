#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_man.py - write a section 1 man page from a built program's --help.

    gen_man.py --program build/cli/scope-profiler --hand packaging/man/scope-profiler.1.txt \\
               --version 0.1.0 --out build/packaging/man/scope-profiler.1 [--no-verbs]

The hand-written file (roff.py's markup) holds what --help does not say
(description, environment, files, examples) and places the generated parts:
  @SYNOPSIS@  the usage forms of --help (and `PROG COMMAND --help`)
  @SUMMARY@   the first paragraph of --help
  @COMMANDS@  every verb: a list, then each verb's whole --help
  @OPTIONS@   the program's own options
A verb or option added to the program appears here at the next build.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helpdoc  # noqa: E402
import roff  # noqa: E402


def usage_lines(h, prog_words):
    """Each usage form as `.B prog verb` + the rest, one form per line."""
    out = [".nf"]
    for form in h.usage:
        words = form.split()
        n = len(prog_words) if words[:len(prog_words)] == prog_words else 1
        head, rest = " ".join(words[:n]), " ".join(words[n:])
        out.append(roff.line("\\fB%s\\fR %s" % (roff.esc(head), roff.esc(rest))).rstrip())
    out.append(".fi")
    return out


def option_term(o):
    spell = ", ".join("\\fB%s\\fR" % roff.esc(s) for s in o.spellings)
    if o.arg:
        spell += " \\fI%s\\fR" % roff.esc(o.arg)
    return spell


def blocks(h, skip_first_para=False):
    """A help text's blocks after its usage, as roff."""
    out = []
    first = True
    for b in h.blocks:
        if b.kind == "para":
            if first and skip_first_para:
                first = False
                continue
            first = False
            out += [".PP", roff.line(roff.inline(b.text()))]
        elif b.kind == "heading":
            out += [".PP", "\\fI%s:\\fR" % roff.esc(b.lines[0])]
        elif b.kind == "items":
            for term, desc in b.items:
                out += [".TP", roff.line("\\fB%s\\fR" % roff.esc(term)), roff.line(roff.inline(desc))]
        elif b.kind == "options":
            for term, desc in b.items:
                o = helpdoc.Option(term, desc)
                out += [".TP", roff.line(option_term(o)), roff.line(roff.inline(desc))]
        elif b.kind == "verbatim":
            out += roff.verbatim(b.lines)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--program", required=True)
    ap.add_argument("--name", help="the program's name (default: the file name)")
    ap.add_argument("--hand", required=True, help="the hand-written part")
    ap.add_argument("--version", required=True)
    ap.add_argument("--date", help="the release date (YYYY-MM-DD) for the page footer")
    ap.add_argument("--section", default="1")
    ap.add_argument("--out", required=True)
    ap.add_argument("--gz-dir", help="also write a gzip-compressed copy there")
    ap.add_argument("--no-verbs", action="store_true", help="the program has no verbs")
    a = ap.parse_args()

    prog = helpdoc.Program(a.program, a.name, verbs=not a.no_verbs)
    pw = [prog.name]
    with open(a.hand, encoding="utf-8") as f:
        hand = f.read()

    def synopsis():
        out = usage_lines(prog.top, pw)
        if prog.verbs:
            out += [".br", "\\fB%s\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR" % roff.esc(prog.name)]
        return out

    def commands():
        out = []
        for v, one_line in prog.verbs:
            out += [".TP", "\\fB%s\\fR" % roff.esc(v), roff.line(roff.inline(one_line))]
        for v, one_line in prog.verbs:
            h = prog.verb_help[v]
            out += ['.SS "%s %s"' % (roff.esc(prog.name), roff.esc(v))]
            out += usage_lines(h, pw + [v])
            out += blocks(h)
        return out

    def options():
        out = []
        for o in prog.top.options:
            out += [".TP", roff.line(option_term(o)), roff.line(roff.inline(o.desc))]
        return out

    def summary():
        return [".PP", roff.line(roff.inline(prog.top.summary()))]

    def details():  # everything of the top --help after its first paragraph
        return blocks(prog.top, skip_first_para=True)

    page = roff.th(prog.name, a.section, "scope-profiler %s" % a.version, "User Commands", a.date)
    page += roff.render_hand(hand, {"@SYNOPSIS@": synopsis, "@COMMANDS@": commands,
                                    "@OPTIONS@": options, "@SUMMARY@": summary,
                                    "@DETAILS@": details})
    text = "\n".join(page) + "\n"
    if re.search(r"@[A-Z0-9_]+@", text):
        sys.exit("gen_man: unknown placeholder left in %s" % a.hand)
    roff.write_page(a.out, text, a.gz_dir)


if __name__ == "__main__":
    main()

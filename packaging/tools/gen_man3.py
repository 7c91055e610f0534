#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_man3.py - write scope-profiler(3) from the public header's comments.

    gen_man3.py --header include/scope_profiler.h --hand packaging/man/scope-profiler.3.txt \\
                --version 0.1.0 --out-dir build/packaging/man/man3

The header is the documentation: its opening comment becomes DESCRIPTION,
each "/* ---- name */" divider a section, and every public declaration is
printed with the comment right above it (a comment followed by a blank line
is prose of its own). Internal names (sp__*, SP__*) are left out; a macro
defined more than once (enabled and disabled variants), or whose body uses
internals, is shown by its signature only.

Besides scope-profiler.3 it makes sp_NAME.3 for every public function and
SP_NAME.3 for every public macro, symbolic links to the main page (Debian
policy prefers links to `.so` pages), so that `man sp_setup` works. With
--gz-dir the same set is also written gzip-compressed there (what gets
installed). --list prints the names of the pages.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roff  # noqa: E402

PAGE = "scope-profiler"
_DIVIDER = re.compile(r"^/\*\s*-{4,}\s*(.*?)\s*\*/$")
_FUNC = re.compile(r"\b((?:sp|SP)_[A-Za-z0-9_]*)\s*\(")
_DEFINE = re.compile(r"^#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?")
_SKIP_PP = re.compile(r"^#\s*(ifndef|ifdef|if|else|elif|endif|include|undef)\b|^extern \"C\"|^}$")


def comment_text(lines):
    """The text of a /* ... */ comment, its ' * ' prefixes removed and the
    relative indentation of code examples kept."""
    body = "\n".join(lines)
    body = re.sub(r"^\s*/\*+", "", body)
    body = re.sub(r"\*+/\s*$", "", body)
    out = []
    for ln in body.split("\n"):
        ln = re.sub(r"^\s*\* ?", "", ln) if re.match(r"^\s*\*", ln) else ln.strip()
        out.append(ln.rstrip())
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


def tokenize(text):
    """The header as a list of (kind, lines): comment, code, blank, divider."""
    items = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        ln = lines[i]
        s = ln.strip()
        if not s:
            items.append(("blank", []))
            i += 1
        elif _DIVIDER.match(s):
            items.append(("divider", [_DIVIDER.match(s).group(1)]))
            i += 1
        elif s.startswith("/*") and not re.match(r"^/\*.*\*/.+", s):
            block = [ln]
            while "*/" not in lines[i] and i + 1 < len(lines):
                i += 1
                block.append(lines[i])
            items.append(("comment", block))
            i += 1
        else:
            block = []
            while i < len(lines):
                block.append(lines[i])
                i += 1
                if not block[-1].rstrip().endswith("\\") and _complete(block):
                    break
                if i < len(lines) and not lines[i].strip():
                    break
            items.append(("code", block))
    return items


def _complete(block):
    """A declaration ends at ';' at brace depth 0, at a preprocessor line that
    does not continue, or at the '}' closing a function body."""
    text = "\n".join(block)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//.*", "", text)
    if block[0].lstrip().startswith("#"):
        return True
    depth = text.count("{") - text.count("}")
    stripped = text.rstrip()
    return depth == 0 and (stripped.endswith(";") or stripped.endswith("}"))


def public(code):
    """The public names a code block declares, or [] for internals."""
    text = "\n".join(code)
    first = code[0].strip()
    if _SKIP_PP.match(first):
        return []
    m = _DEFINE.match(first)
    if m:
        name = m.group(1)
        return [] if name.startswith("SP__") or not name.startswith("SP") else [name]
    if "static inline" in text:
        return []
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    names = [n for n in _FUNC.findall(text) if not n.startswith(("sp__", "SP__"))]
    types = re.findall(r"\btypedef\b.*?\b(sp_[a-z_]+)\s*;", text, flags=re.S)
    types += re.findall(r"}\s*(sp_[a-z_]+)\s*;", text)
    out = []
    for n in names + types:
        if n not in out and not n.startswith("sp__"):
            out.append(n)
    return out


def shown_code(code, macro_counts):
    """The lines printed for a declaration: the whole thing, or a macro's
    signature when its body is internal."""
    m = _DEFINE.match(code[0].strip())
    if not m:
        out = []
        for ln in code:  # X-macro expansions inside a public type: say what they make
            if ln.lstrip().startswith("#") and re.search(r"\bSP__", ln):
                continue
            x = re.match(r"^(\s*)(SP_[A-Z0-9_]+)\(SP__\w+\)\s*$", ln)
            if x:
                ln = "%s/* ... one SP_<NAME> = value per entry of %s */" % (x.group(1), x.group(2))
            out.append(ln.rstrip())
        return out
    name = m.group(1)
    body = "\n".join(code)
    if macro_counts.get(name, 0) > 1 or re.search(r"\b(sp__|SP__)", body):
        return ["#define %s%s" % (name, m.group(2) or "")]
    return [ln.rstrip() for ln in code]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--header", required=True)
    ap.add_argument("--hand", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--date", help="the release date (YYYY-MM-DD) for the page footer")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--gz-dir", help="also write the pages gzip-compressed there")
    ap.add_argument("--list", action="store_true", help="print the names of the pages")
    a = ap.parse_args()
    with open(a.header, encoding="utf-8") as f:
        items = tokenize(f.read())
    with open(a.hand, encoding="utf-8") as f:
        hand = f.read()

    # The opening comment (after the SPDX line): "name.h - what it is" + text.
    comments = [it for it in items if it[0] == "comment"]
    intro = comment_text(next(c[1] for c in comments if "SPDX" not in "".join(c[1])))
    head = intro[0]
    what = (head.split(" - ", 1)[1] if " - " in head else head).rstrip(".")
    intro_body = intro[1:]
    while intro_body and not intro_body[0].strip():
        intro_body.pop(0)

    macro_counts, last_def = {}, {}
    for k, (kind, lines) in enumerate(items):
        if kind == "code":
            m = _DEFINE.match(lines[0].strip())
            if m:
                macro_counts[m.group(1)] = macro_counts.get(m.group(1), 0) + 1
                last_def[m.group(1)] = k

    sections = []  # [title, [roff lines]]
    functions, macros = [], []
    current = None
    pending = None  # a comment waiting for its declaration
    group = None  # consecutive public declarations sharing one comment

    def close_group():
        nonlocal group, pending
        if group:
            current[1] += [".PP", ".nf", ".ft B"]
            current[1] += [roff.line(roff.esc(s)) for s in group]
            current[1] += [".ft R", ".fi"]
            if pending is not None:
                current[1] += [".RS 4"] + prose(pending) + [".RE"]
        elif pending is not None and _names_public_thing(pending):
            current[1] += prose(pending)
        group = None
        pending = None

    for k, (kind, lines) in enumerate(items):
        if kind == "divider":
            if current is not None:
                close_group()
            current = [lines[0], []]
            sections.append(current)
            continue
        if current is None:
            continue
        if kind == "comment":
            close_group()
            pending = comment_text(lines)
            continue
        if kind == "blank":
            close_group()
            continue
        names = public(lines)
        m = _DEFINE.match(lines[0].strip())
        if not names or (m and last_def.get(m.group(1)) != k):
            # internal, or a macro's earlier (disabled) variant: the comment
            # above documents it only if it names a public thing.
            if not group:
                close_group()
            continue
        if m:
            if m.group(2) is not None:
                macros.append(m.group(1))
        else:
            functions += [n for n in names if n.startswith("sp_") and
                          re.search(r"\b%s\s*\(" % n, "\n".join(lines))]
        group = (group or []) + shown_code(lines, macro_counts)
    if current is not None:
        close_group()

    def description():
        return prose(intro_body)

    def api():
        out = []
        for title, body in sections:
            out += ['.SH "%s"' % roff.esc(title.upper())] + body
        return out

    def index():
        return [".PP", roff.line(", ".join("\\fB%s\\fR(3)" % roff.esc(n) for n in functions + macros)
                                 + ".")]

    page = roff.th(PAGE, "3", "scope-profiler %s" % a.version, "Library Functions Manual", a.date)
    page += roff.render_hand(hand, {"@WHAT@": [".SH NAME", "%s \\- %s" % (PAGE, roff.esc(what))],
                                    "@DESCRIPTION@": description, "@API@": api,
                                    "@INDEX@": index})
    # Start clean: a function removed from the header loses its page.
    for d in filter(None, [a.out_dir, a.gz_dir]):
        if os.path.isdir(d):
            for f in os.listdir(d):
                if re.search(r"\.3(\.gz)?$", f):
                    os.remove(os.path.join(d, f))
    links = [n + ".3" for n in functions + macros]
    roff.write_page(os.path.join(a.out_dir, PAGE + ".3"), "\n".join(page) + "\n", a.gz_dir, links)
    if a.list:
        print("\n".join([PAGE + ".3"] + links))


def _names_public_thing(lines):
    """Does a comment start by naming a public function or macro, as the
    header's documentation of SP_SCOPE does ("SP_SCOPE("name") { ... } records")?"""
    m = re.match(r"\s*((?:sp|SP)_[A-Za-z0-9_]+)", lines[0] if lines else "")
    return bool(m) and not m.group(1).startswith(("sp__", "SP__"))


def _hangs(first, ln):
    m = re.match(r"^([a-z_]+: )", first or "")
    return bool(m) and len(ln) - len(ln.lstrip()) == len(m.group(1))


def para_first(para, lines, ln):
    """The source line that started the current paragraph."""
    for src in lines:
        if src.strip() == para[0]:
            return src
    return None


def prose(lines, pp=True):
    """Comment text as paragraphs; lines indented by 2+ spaces, or list
    items ("- x", "  VAR=value  what"), are kept as they are laid out."""
    out = []
    para = []
    verb = []

    def flush():
        nonlocal para, verb
        if para:
            out.extend(([".PP"] if pp or out else []) + [roff.line(roff.esc(" ".join(para)))])
            para = []
        if verb:
            out.extend([".PP", ".nf"] + [roff.line(roff.esc(v)) for v in verb] + [".fi"])
            verb = []

    for ln in lines:
        if not ln.strip():
            flush()
            continue
        if para and ln.startswith(" ") and not verb and _hangs(para_first(para, lines, ln), ln):
            para.append(ln.strip())  # the hanging indent of "results: if not NULL, ..."
            continue
        if ln.startswith("  ") or ln.startswith("- ") or (verb and ln.startswith(" ")):
            if para:
                flush()
            verb.append(ln)
            continue
        if verb:
            flush()
        if para and re.match(r"^([a-z_]+: |Returns )", ln):  # "verbose: ...", "results: ...": one each
            flush()
        para.append(ln.strip())
    flush()
    return out


if __name__ == "__main__":
    main()

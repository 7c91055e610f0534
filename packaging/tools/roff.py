# SPDX-License-Identifier: MIT
"""roff - the few man(7) building blocks the page generators share, and the
small markup of the hand-written parts (packaging/man/*.txt):

    .name NAME - one line          the NAME section (first line of the file)
    == SECTION                     .SH SECTION
    === Subsection                 .SS Subsection
    @PLACEHOLDER@                  a generated part (the generator says which)
    text at column 0               paragraphs (a blank line ends one)
    : term                         a tagged paragraph: the lines after it
                                   (until a blank line) describe the term
    - item                         a bullet
        four spaces                kept verbatim (commands, code)
    `code`                         bold (commands, options, file names)
"""
import gzip
import os
import re
import time

# A word that starts with '-' is an option (or "-" for stdout): every '-' of
# it is a minus sign, typed as ASCII '-' ("\-" in roff); a '-' inside other
# words ("self-contained", "0-3") stays a hyphen.
_OPTION_WORD = re.compile(r"(?:(?<=^)|(?<=[\s(\[{|,=\"'`/]))-[-\w.]*")


def esc(text):
    """Escape plain text for roff (backslashes, minus signs)."""
    text = text.replace("\\", "\\e")
    return _OPTION_WORD.sub(lambda m: m.group(0).replace("-", "\\-"), text)


def inline(text):
    """esc() plus `code` -> bold."""
    parts = re.split(r"`([^`]+)`", text)
    out = []
    for k, p in enumerate(parts):
        out.append("\\fB%s\\fR" % esc(p) if k % 2 else esc(p))
    return "".join(out)


def line(text):
    """One output line: protect a leading '.' or '\\'' from being a request."""
    if text.startswith(".") or text.startswith("'"):
        return "\\&" + text
    return text


def th(title, section, version, manual, date=None):
    """The .TH line; date: the release's (reproducible), else
    SOURCE_DATE_EPOCH's, else today."""
    if not date:
        epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
        date = time.strftime("%Y-%m-%d", time.gmtime(epoch))
    return ['.TH "%s" "%s" "%s" "%s" "%s"' % (title.upper(), section, date, version, manual),
            ".nh", ".ad l"]  # no hyphenation, ragged right: options stay whole


def verbatim(lines):
    out = [".PP", ".RS 4", ".nf"]
    out += [line(esc(s)) for s in lines]
    out += [".fi", ".RE"]
    return out


def render_hand(text, placeholders):
    """Render the hand-written markup; placeholders maps "@NAME@" to a list
    of roff lines (or a callable returning one)."""
    out = []
    para = []
    verb = []
    mode = None  # None, "tp" (inside a tagged paragraph)

    def flush():
        nonlocal para, verb
        if para:
            out.extend([line(inline(s)) for s in para])
            para = []
        if verb:
            out.extend(verbatim(verb))
            verb = []

    for raw in text.splitlines():
        s = raw.rstrip()
        if s.startswith("    ") and s.strip():
            if para:
                flush()
            verb.append(s[4:])
            continue
        if verb:
            flush()
        if not s:
            flush()
            mode = None
            continue
        if s.startswith(".name "):
            name, _, what = s[len(".name "):].partition(" - ")
            out += [".SH NAME", "%s \\- %s" % (esc(name), esc(what))]
        elif s.startswith("=== "):
            flush()
            out += ['.SS "%s"' % esc(s[4:])]
        elif s.startswith("== "):
            flush()
            out += ['.SH "%s"' % esc(s[3:])]
        elif re.fullmatch(r"@[A-Z0-9_]+@", s):
            flush()
            part = placeholders[s]
            out += part() if callable(part) else part
        elif s.startswith(": "):
            flush()
            out += [".TP", line(inline(s[2:]))]
            mode = "tp"
        elif s.startswith("- "):
            flush()
            out += [".IP \\(bu 2"]
            para.append(s[2:])
        else:
            if not para and mode != "tp" and (not out or out[-1] not in (".PP",)):
                if not (out and out[-1].startswith(".IP")):
                    out.append(".PP")
            para.append(s)
    flush()
    return out


def write_page(path, text, gz_dir=None, links=()):
    """Write a man page (atomically), and with gz_dir also a gzip -9n copy
    there (Debian installs man pages compressed); links: other names of the
    page, made symbolic links next to each copy (sp_setup.3 -> scope-profiler.3)."""
    def put(dest, data, opener):
        os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
        tmp = dest + ".tmp"
        with opener(tmp) as f:
            f.write(data)
        os.replace(tmp, dest)

    def link(folder, target, names, suffix):
        for n in names:
            dest = os.path.join(folder, n + suffix)
            if os.path.lexists(dest):
                os.remove(dest)
            os.symlink(target, dest)

    data = text.encode("utf-8")
    put(path, data, lambda t: open(t, "wb"))
    link(os.path.dirname(os.path.abspath(path)), os.path.basename(path), links, "")
    if gz_dir:
        base = os.path.basename(path)
        put(os.path.join(gz_dir, base + ".gz"), data,
            lambda t: gzip.GzipFile(t, "wb", compresslevel=9, mtime=0))
        link(gz_dir, base + ".gz", links, ".gz")

# SPDX-License-Identifier: MIT
"""helpdoc - read a program's own --help into a structure.

The man pages and the shell completions are both generated from what the
built programs print for --help (and `scope-profiler VERB --help`), so a verb
or an option added to the CLI appears in both without editing packaging
files. This module is the one parser they share.

The help layout it understands (the one every scope-profiler verb and GLib's
option parser print):

    usage: PROG VERB [OPTIONS] OPERAND...     (GLib: "Usage:" + indented lines)
           PROG VERB other-form               (a second form, or a wrapped line)

    Paragraph text at column 0, joined until a blank line or an indented line.
      term        definition, continued on lines
                  indented deeper than the term
      an indented line without a two-space gap is an example, kept verbatim

    Options:                                   (any "Heading:" line)
      -o, --output OUT   description
          --tree         description
"""
import os
import re
import subprocess

_HEADING = re.compile(r"^([A-Z][A-Za-z0-9 /_-]*):\s*$")
_ITEM = re.compile(r"^( {1,8})(\S(?:\S| (?! ))*?)( {2,})(\S.*)$")
_OPT_ONLY = re.compile(r"^( {1,8})(-[^ ].*?)\s*$")
_SPELLING = re.compile(r"^(--?[A-Za-z0-9?][A-Za-z0-9_-]*)(?:[ =](.+))?$")
_WORD = re.compile(r"^[a-z][a-z0-9_-]*$")


class Option:
    """One option: its spellings, the name of its argument, what it does."""

    def __init__(self, term, desc):
        self.term = term
        self.desc = desc
        self.short = []
        self.long = []
        self.arg = None
        for part in re.split(r",\s*", term):
            m = _SPELLING.match(part.strip())
            if not m:
                continue
            (self.long if m.group(1).startswith("--") else self.short).append(m.group(1))
            if m.group(2):
                self.arg = m.group(2).strip()
        self.choices = option_choices(self.arg, desc) if self.arg else []

    @property
    def spellings(self):
        return self.short + self.long


class Block:
    """A piece of help text: kind is para, items, options, verbatim or heading."""

    def __init__(self, kind, heading=None):
        self.kind = kind
        self.heading = heading  # the "Heading:" the block sits under, if any
        self.lines = []  # para / verbatim / heading: text lines
        self.items = []  # items / options: [term, desc] pairs

    def text(self):
        return " ".join(self.lines)


class Help:
    """A parsed --help: usage forms, blocks, options, operands."""

    def __init__(self, prog, text):
        self.prog = prog  # "scope-profiler export": how the usage lines start
        self.raw = text
        self.usage = []  # usage forms, each one string (wrapped lines joined)
        self.blocks = []
        _parse(self, text)
        self.options = [Option(t, d) for b in self.blocks if b.kind == "options" for t, d in b.items]
        self.operands = _operands(self)

    def option(self, spelling):
        for o in self.options:
            if spelling in o.spellings:
                return o
        return None

    def items_under(self, heading):
        """The [term, desc] items of the block(s) under "heading:"."""
        return [it for b in self.blocks if b.heading == heading and b.kind in ("items", "options")
                for it in b.items]

    def summary(self):
        """The first paragraph: what the command does, in a sentence or two."""
        for b in self.blocks:
            if b.kind == "para":
                return b.text()
        return ""


def option_choices(arg, desc):
    """The values an option's argument takes, when its help lists them:
    "ns|us" in the argument itself, or a list of single words such as
    "png (default), svg or pdf" or "...: total (default), own, calls; or name"
    in the description. [] when the argument is free (a number, a pattern)."""
    if "|" in arg:
        vals = [v for v in arg.split("|") if _WORD.match(v)]
        if len(vals) >= 2:
            return vals
    flat = desc
    while True:  # drop parentheticals, innermost first: "max (per-rank total, default)"
        nxt = re.sub(r"\([^()]*\)", "", flat)
        if nxt == flat:
            break
        flat = nxt
    candidates = [flat] + [flat.split(":", 1)[1]] if ":" in flat else [flat]
    for text in candidates:
        vals = [v.strip().rstrip(".") for v in re.split(r",|;|\bor\b", text)]
        vals = [v for v in vals if v]
        if len(vals) >= 2 and all(_WORD.match(v) for v in vals):
            return vals
    return []


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _parse(h, text):
    lines = text.expandtabs().splitlines()
    i = 0
    # Usage: "usage: PROG ..." with indented continuations, or GLib's "Usage:"
    # followed by indented forms.
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and lines[i].lower().startswith("usage:"):
        first = lines[i][len("usage:"):].strip()
        forms = [first] if first else []
        i += 1
        while i < len(lines) and lines[i].strip() and lines[i].startswith(" "):
            s = lines[i].strip()
            if forms and not s.startswith(h.prog.split()[0]):
                forms[-1] += " " + s  # a wrapped usage line
            else:
                forms.append(s)
            i += 1
        h.usage = forms
    heading = None
    block = None
    item_indent = 0
    desc_col = 0

    def close():
        nonlocal block
        if block is not None and (block.lines or block.items):
            h.blocks.append(block)
        block = None

    for line in lines[i:]:
        if not line.strip():
            close()
            continue
        m = _HEADING.match(line)
        if m and _indent(line) == 0:
            close()
            heading = m.group(1)
            hb = Block("heading", heading)
            hb.lines.append(heading)
            h.blocks.append(hb)
            continue
        ind = _indent(line)
        if ind == 0:
            if block is None or block.kind != "para":
                close()
                block = Block("para", heading)
            block.lines.append(line.strip())
            continue
        # Indented: a continuation of the current item (deeper than its term,
        # and not an option line left of its description column), a new item,
        # or verbatim.
        if block is not None and block.kind in ("items", "options") and block.items \
                and ind > item_indent \
                and not (line.lstrip().startswith("-") and ind < desc_col) \
                and (ind >= desc_col - 2 or not _ITEM.match(line)):
            block.items[-1][1] = (block.items[-1][1] + " " + line.strip()).strip()
            continue
        m = _ITEM.match(line)
        mo = None if m else _OPT_ONLY.match(line)
        if m or mo:
            term = (m or mo).group(2)
            desc = m.group(4) if m else ""
            kind = "options" if term.startswith("-") else "items"
            if block is None or block.kind != kind:
                close()
                block = Block(kind, heading)
            block.items.append([term, desc])
            item_indent = ind
            desc_col = len(line) - len(desc) if m else len(line) + 2
            continue
        if block is None or block.kind != "verbatim":
            close()
            block = Block("verbatim", heading)
        block.lines.append(line.strip())
    close()


def _operands(h):
    """Per usage form, the operands in order: [(NAME, variadic), ...]; literal
    words (the `list` of `plot list`) are kept as lowercase names."""
    forms = []
    for form in h.usage:
        words = form.split()
        prog_words = h.prog.split()
        if words[:len(prog_words)] == prog_words:
            words = words[len(prog_words):]
        elif words and os.path.basename(words[0]) == os.path.basename(prog_words[0]):
            words = words[1:]
        out = []
        skip_arg = False
        for w in words:
            bare = w.strip("[]")
            if skip_arg:  # the argument of the option before: "-o OUT", "[--hz N]"
                skip_arg = False
                continue
            if bare.startswith("-"):
                o = h.option(bare.split("=")[0])
                if o is not None and o.arg and "=" not in bare and not w.endswith("]"):
                    skip_arg = True
                continue
            if not bare or bare.upper().rstrip(".…") in ("OPTIONS", "OPTION"):
                continue
            variadic = bare.endswith("...") or bare.endswith("…")
            name = bare.rstrip(".…")
            if name:
                out.append((name, variadic))
        forms.append(out)
    return forms


def operand_values(h, name, run_list=None):
    """Values for an operand placeholder such as FORMAT or KIND: the terms of
    the definition list that follows the paragraph naming it ("FORMAT is one
    of:"), plus the first words of `PROG VERB list` when that paragraph points
    to it and run_list (a callable taking the argv tail) is given, plus the
    literal words other usage forms have at the same position."""
    vals = []
    blocks = h.blocks
    for k, b in enumerate(blocks):
        # The paragraph's last sentence introduces the list: "FORMAT is one of:".
        last = re.split(r"(?<=\.)\s+(?=[A-Z])", b.text())[-1] if b.kind == "para" else ""
        if not re.search(r"\b%s\b" % re.escape(name), last):
            continue
        nxt = blocks[k + 1] if k + 1 < len(blocks) else None
        if nxt is None or nxt.kind != "items" or nxt.heading != b.heading:
            continue
        for term, _ in nxt.items:
            vals.append(term.split()[0])
        m = re.search(r"`%s ([a-z-]+)`" % re.escape(h.prog), last)
        if m and run_list is not None:
            for line in run_list([m.group(1)]).splitlines():
                if line.strip() and not line.startswith(" "):
                    vals.append(line.split()[0])
        break
    return list(dict.fromkeys(vals))


def run_help(program, args, env=None):
    """What `program args...` prints on stdout (its --help); raises if it fails."""
    e = dict(os.environ)
    # Sanitizer builds: a leak report at exit would make --help "fail".
    for var in ("ASAN_OPTIONS", "LSAN_OPTIONS"):
        e[var] = ":".join(filter(None, [e.get(var), "detect_leaks=0"]))
    e.pop("DISPLAY", None)  # --help must not need a display
    e.pop("WAYLAND_DISPLAY", None)
    if env:
        e.update(env)
    p = subprocess.run([program] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=e, check=False, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("%s %s exited with %d: %s" % (program, " ".join(args), p.returncode,
                                                         p.stderr.strip()))
    return p.stdout


class Program:
    """A program and its verbs, read from the built binaries."""

    def __init__(self, path, name=None, verbs=True):
        self.path = path
        self.name = name or os.path.basename(path)
        self.top = Help(self.name, run_help(path, ["--help"]))
        self.verbs = []  # [(verb, one-line help)]
        self.verb_help = {}
        if verbs:
            self.verbs = [(t, d) for t, d in self.top.items_under("Commands")]
            for v, _ in self.verbs:
                self.verb_help[v] = Help("%s %s" % (self.name, v), run_help(path, [v, "--help"]))

    def run_list(self, verb):
        return lambda tail: run_help(self.path, [verb] + tail)

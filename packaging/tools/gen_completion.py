#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_completion.py - write bash and zsh completions from a built program's --help.

    gen_completion.py --program build/cli/scope-profiler --template packaging/completion/complete.bash.in \\
                      --bash OUT [--zsh OUT] [--no-verbs]

Verbs, options (and which take an argument), option values (png|svg|pdf,
sort keys, ...), operands (export FORMATs, plot KINDs, *.h5 runs, a
PROGRAM) all come from what the program prints for --help, read with
helpdoc.py, so a verb or an option added to the program completes at the
next build without anyone editing this.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helpdoc  # noqa: E402


def placeholder_kind(name, choices=()):
    """What an option argument or operand named `name` completes to."""
    if choices:
        return "choice " + " ".join(choices)
    name = name.rstrip(".…")  # "FILE...": several, each a FILE
    up = name.upper()
    if "." in name or up in ("OUT", "PATH", "ARGS", "ARG"):
        return "file"
    if re.search(r"FILE|BASE|CAND|RUN", up):
        return "h5"
    if re.search(r"DIR", up):
        return "dir"
    if up in ("PROGRAM", "COMMAND", "CMD"):
        return "command"
    return "none"


class VerbSpec:
    def __init__(self, h, run_list=None):
        self.options = h.options
        self.opts = [s for o in h.options for s in o.spellings]
        self.args = {}  # spelling -> kind
        for o in h.options:
            if o.arg:
                for s in o.spellings:
                    self.args[s] = placeholder_kind(o.arg, o.choices)
        forms = h.operands or [[]]
        primary = forms[0]
        self.operands = []  # [(name, kind)]
        for pos, (name, _) in enumerate(primary):
            kind = placeholder_kind(name)
            if kind == "none" and name.isupper():
                vals = helpdoc.operand_values(h, name, run_list)
                for f in forms[1:]:  # literal words of other forms: `plot list`
                    if pos < len(f) and f[pos][0].islower() and f[pos][0] not in vals:
                        vals.append(f[pos][0])
                if vals:
                    kind = placeholder_kind(name, vals)
            elif name.islower():
                kind = "choice " + " ".join([name] + [f[pos][0] for f in forms[1:]
                                                      if pos < len(f) and f[pos][0].islower()])
            self.operands.append((name, kind))
        self.variadic = bool(primary) and primary[-1][1]


def bash_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def bash_data(spec_name, verbs, specs):
    lines = ["declare -gA %s=(" % spec_name]
    if verbs:
        lines.append("    [verbs]=%s" % bash_quote(" ".join(v for v, _ in verbs)))
    for verb, vs in specs.items():
        lines.append("    [%s]=%s" % (bash_quote("opts:" + verb), bash_quote(" ".join(vs.opts))))
        for s, kind in vs.args.items():
            lines.append("    [%s]=%s" % (bash_quote("arg:%s:%s" % (verb, s)), bash_quote(kind)))
        for pos, (_, kind) in enumerate(vs.operands):
            lines.append("    [%s]=%s" % (bash_quote("op:%s:%d" % (verb, pos)), bash_quote(kind)))
        lines.append("    [%s]=%d" % (bash_quote("opn:" + verb), len(vs.operands)))
        if vs.variadic:
            lines.append("    [%s]=1" % bash_quote("opv:" + verb))
    lines.append(")")
    return "\n".join(lines)


def zsh_desc(text):
    """A short description for zsh: the first clause, escaped for _arguments."""
    text = re.split(r"(?<=[.;])\s", text.strip())[0].rstrip(".;")
    if len(text) > 72:
        text = text[:69].rsplit(" ", 1)[0] + "..."
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def zsh_action(kind, fn_h5):
    if kind.startswith("choice "):
        return "(%s)" % kind[len("choice "):]
    return {"h5": fn_h5, "file": "_files", "dir": "_files -/", "command": "_command_names -e",
            "none": " "}[kind]


def zsh_q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def zsh_specs(vs, fn_h5):
    out = []
    for o in vs.options:
        excl = "(%s)" % " ".join(o.spellings) if len(o.spellings) > 1 else ""
        if any(s in ("-h", "--help", "--version", "-V") for s in o.spellings):
            excl = "(- *)"
        desc = zsh_desc(o.desc)
        for s in o.spellings:
            if o.arg:
                suffix = "=" if s.startswith("--") else "+"
                kind = vs.args[s]
                out.append(zsh_q("%s%s%s[%s]:%s:%s" % (excl, s, suffix, desc, o.arg.replace(":", "\\:"),
                                                        zsh_action(kind, fn_h5))))
            else:
                out.append(zsh_q("%s%s[%s]" % (excl, s, desc)))
    for pos, (name, kind) in enumerate(vs.operands):
        last = pos == len(vs.operands) - 1
        if kind == "command":
            out.append(zsh_q("%d:%s:%s" % (pos + 1, name, zsh_action(kind, fn_h5))))
            out.append(zsh_q("*::arguments:_normal"))
            break
        if last and vs.variadic:
            out.append(zsh_q("*:%s:%s" % (name, zsh_action(kind, fn_h5))))
        else:
            out.append(zsh_q("%d:%s:%s" % (pos + 1, name, zsh_action(kind, fn_h5))))
    return out


def zsh_file(name, verbs, specs):
    fn = "_" + name
    fn_h5 = fn + "_runs"
    L = ["#compdef %s" % name, "# SPDX-License-Identifier: MIT",
         "# %s(1) completion for zsh. GENERATED at build time by packaging/tools/gen_completion.py" % name,
         "# from `%s --help`: do not edit, edit the program's help." % name, "",
         "%s() { _files -g '*.(h5|hdf5)(-.)' }" % fn_h5, "", "%s() {" % fn,
         "  local curcontext=$curcontext state state_descr line ret=1",
         "  typeset -A opt_args"]
    if not verbs:
        L.append("  _arguments -s -S \\")
        L += ["    %s \\" % s for s in zsh_specs(specs[""], fn_h5)]
        L += ["    && ret=0", "  return ret", "}", "", '%s "$@"' % fn]
        return "\n".join(L) + "\n"
    L.append("  _arguments -C \\")
    L += ["    %s \\" % s for s in zsh_specs(specs[""], fn_h5)]
    L += ["    '1:command:->verb' \\", "    '*::argument:->args' && ret=0", "  case $state in",
          "    (verb)", "      local -a verbs", "      verbs=("]
    L += ["        %s" % zsh_q("%s:%s" % (v, d.replace(":", "\\:"))) for v, d in verbs]
    L += ["      )", "      _describe -t commands %s verbs && ret=0" % zsh_q(name + " command"),
          "      ;;", "    (args)",
          "      curcontext=${curcontext%%:*:*}:%s-$words[1]:" % name, "      case $words[1] in"]
    for v, _ in verbs:
        L.append("        (%s)" % v)
        L.append("          _arguments -s -S \\")
        L += ["            %s \\" % s for s in zsh_specs(specs[v], fn_h5)]
        L += ["            && ret=0", "          ;;"]
    L += ["      esac", "      ;;", "  esac", "  return ret", "}", "", '%s "$@"' % fn]
    return "\n".join(L) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--program", required=True)
    ap.add_argument("--name")
    ap.add_argument("--template", required=True, help="complete.bash.in")
    ap.add_argument("--bash", required=True)
    ap.add_argument("--zsh")
    ap.add_argument("--no-verbs", action="store_true")
    a = ap.parse_args()

    prog = helpdoc.Program(a.program, a.name, verbs=not a.no_verbs)
    specs = {"": VerbSpec(prog.top)}
    if prog.verbs:
        specs[""].operands, specs[""].variadic = [], False  # COMMAND: the verbs
    for v, _ in prog.verbs:
        specs[v] = VerbSpec(prog.verb_help[v], prog.run_list(v))

    func = "_" + re.sub(r"[^A-Za-z0-9]", "_", prog.name)
    with open(a.template, encoding="utf-8") as f:
        tpl = f.read()
    text = (tpl.replace("@DATA@", bash_data(func + "_spec", prog.verbs, specs))
            .replace("@SPEC@", func + "_spec").replace("@FUNC@", func).replace("@NAME@", prog.name))
    write(a.bash, text)
    if a.zsh:
        write(a.zsh, zsh_file(prog.name, prog.verbs, specs))


if __name__ == "__main__":
    main()

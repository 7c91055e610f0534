#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Put one crafted run file through every reading verb and the viewer.

    check_hostile.py OUTDIR CLI VIEWER|- XVFB_RUN|- FILE STATUS [ERROR_REGEX]

OUTDIR is what make_hostile_files.py wrote (its secret file and traps).
For every verb (summary, inspect, ranks, diff, check, export of each format,
plot, report, tui, line-profile) and the viewer's screenshot mode:
- the exit status is STATUS (0: the file is read; 2: it is refused, and the
  error line of `summary` matches ERROR_REGEX), never a signal;
  line-profile may also exit 2 on a readable file without line samples;
- it ends within LIMIT seconds (a hang is killed and fails);
- no sanitizer report on stderr;
- no raw control byte or bidi control on stdout or stderr (\\n and \\t
  aside), nor in a written text file (JSON, CSV, HTML, SVG, collapsed
  stacks; there \\r is allowed too), nor an injected terminal sequence in
  the TUI's output;
- no byte of a file the run does not own: the secret marker, /etc/passwd's
  first line, /etc/shadow's first line, this process's environment marker.
Prints "hostile: ok" and per-verb times; "FAIL: ..." lines otherwise.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

LIMIT = float(os.environ.get("SP_HOSTILE_LIMIT", "60"))
SECRET_MARKER = "HOSTILE-SECRET-MARKER-4f1c9a"
ENV_MARKER = "HOSTILE-ENV-MARKER-77d1"

outdir, cli, viewer, xvfb, path, expect = sys.argv[1:7]
expect = int(expect)
error_regex = sys.argv[7] if len(sys.argv) > 7 else ""
failures = []
times = []


def forbidden_contents():
    bad = [SECRET_MARKER.encode(), ENV_MARKER.encode()]
    for f in ("/etc/passwd", "/etc/shadow"):
        try:
            with open(f, "rb") as fh:
                first = fh.readline().strip()
            if len(first) > 8:
                bad.append(first)
        except OSError:
            pass
    return bad


FORBIDDEN = forbidden_contents()
# C0 controls but \t \n, DEL, C1 controls (raw or UTF-8 encoded), and the
# bidi formatting characters U+061C, U+200E/F, U+202A-E, U+2066-9 (UTF-8),
# which display the rest of a line reordered.
BIDI = rb"|\xd8\x9c|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
CTRL_STREAM = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]" + BIDI)
CTRL_FILE = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]" + BIDI)
SANITIZER = re.compile(rb"(ERROR: (Address|Leak|Thread)Sanitizer|runtime error:|"
                       rb"SUMMARY: (Address|Undefined)|AddressSanitizer:DEADLYSIGNAL)")
# What a name may try to make a terminal do (ncurses itself never emits these).
TUI_INJECTED = re.compile(rb"\x1b\][0-9]|\x9b|\x1b\[5m|\x07")
TEXT_EXT = (".json", ".csv", ".html", ".svg", ".txt", ".folded", ".collapsed", ".trace")


def fail(verb, msg, out=b"", err=b""):
    failures.append(f"FAIL: {verb}: {msg}")
    print(f"FAIL: {verb}: {msg}")
    if err:
        print("--- stderr (first 1500 bytes):")
        print(err[:1500].decode("utf-8", "backslashreplace"))
    if out:
        print("--- stdout (first 800 bytes):")
        print(out[:800].decode("utf-8", "backslashreplace"))


def check_bytes(verb, what, data, ctrl):
    m = ctrl.search(data)
    if m:
        at = m.start()
        fail(verb, f"raw control byte {data[at:at + 1]!r} in {what} at {at}: "
             f"{data[max(0, at - 40):at + 40]!r}")
    for b in FORBIDDEN:
        if b in data:
            fail(verb, f"{what} shows content of a file the run does not own ({b[:30]!r})")


def env():
    e = dict(os.environ)
    e[ENV_MARKER.split("-")[0] + "_HOSTILE"] = ENV_MARKER
    e.setdefault("LANG", "C.UTF-8")
    e.setdefault("LC_ALL", "C.UTF-8")
    e["ASAN_OPTIONS"] = e.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    return e


def allowed_for(verb):
    if expect == 0 and verb.startswith("line-profile"):
        return {0, 2}  # no line samples in the file: one line, exit 2
    return {expect}


def run(verb, argv, cwd, stdin=None, extra_files_dir=None):
    allowed = allowed_for(verb)
    t = time.monotonic()
    try:
        for attempt in range(3):
            p = subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True,
                               timeout=LIMIT, env=env())
            # xvfb-run -a picks a free display by looking, so two tests that
            # start X at once can pick the same one; the loser's Xvfb fails
            # to start, or xvfb-run fails to remove its temporary directory
            # afterwards (exit 5, masking the viewer's status): xvfb-run's
            # doing, not the viewer's, so that run is repeated.
            if b"Xvfb failed to start" not in p.stderr and \
                    b"xvfb-run: error: problem while cleaning up" not in p.stderr:
                break
            time.sleep(1 + attempt)
    except subprocess.TimeoutExpired as e:
        fail(verb, f"still running after {LIMIT:.0f} s (killed)", e.stdout or b"",
             e.stderr or b"")
        return None
    dt = time.monotonic() - t
    times.append((dt, verb))
    if p.returncode < 0:
        fail(verb, f"killed by signal {-p.returncode}", p.stdout, p.stderr)
    elif p.returncode not in allowed:
        fail(verb, f"exit status {p.returncode} (allowed: {sorted(allowed)})", p.stdout,
             p.stderr)
    if SANITIZER.search(p.stderr) or SANITIZER.search(p.stdout):
        fail(verb, "sanitizer report", b"", p.stderr)
    check_bytes(verb, "stdout", p.stdout, CTRL_STREAM)
    check_bytes(verb, "stderr", p.stderr, CTRL_STREAM)
    if p.returncode == 2 and len(p.stderr.splitlines()) > 1 and verb != "viewer":
        fail(verb, "exit 2 with more than one line on stderr", b"", p.stderr)
    if extra_files_dir:
        for root, _, names in os.walk(extra_files_dir):
            for n in names:
                f = os.path.join(root, n)
                if n.endswith(TEXT_EXT):
                    with open(f, "rb") as fh:
                        check_bytes(verb, f"file {n}", fh.read(), CTRL_FILE)
    return p


def main():
    work = tempfile.mkdtemp(prefix="sp-hostile-")
    try:
        cwd = work
        verbs = [
            ("summary", ["summary", path]),
            ("inspect", ["inspect", path]),
            ("ranks", ["ranks", path]),
            ("diff", ["diff", path, path]),
            ("check", ["check", path, path]),
            ("line-profile", ["line-profile", path]),
            ("line-profile-source-dir",
             ["line-profile", "--source-dir", os.path.join(outdir, "wd"), path]),
        ]
        if "_mpi_" in os.path.basename(path):  # files with MPI messages: why ranks wait
            verbs += [("waits", ["waits", "--all", "--pairs", path]),
                      ("waits --csv", ["waits", "--csv", "-", path])]
        for verb, args in verbs:
            p = run(verb, [cli] + args, cwd)
            if verb == "summary" and p and expect == 2 and \
                    not re.search(error_regex.encode(), p.stderr):
                fail(verb, f"the error does not say why (want /{error_regex}/)", b"", p.stderr)
        for fmt in ("json", "csv", "chrome-trace", "speedscope", "collapsed", "plot-data"):
            d = os.path.join(work, "export-" + fmt)
            os.makedirs(d)
            out = os.path.join(d, "out" if fmt in ("csv", "plot-data") else "out.txt")
            run("export " + fmt, [cli, "export", fmt, path, "-o", out], cwd, extra_files_dir=d)
        d = os.path.join(work, "plot")
        os.makedirs(d)
        run("plot", [cli, "plot", "all", "--format", "svg", path, "-o", d], cwd,
            extra_files_dir=d)
        d = os.path.join(work, "report")
        os.makedirs(d)
        run("report", [cli, "report", path, "-o", os.path.join(d, "r.html")], cwd,
            extra_files_dir=d)
        tui(work)
        if viewer != "-":
            name = os.path.basename(path)
            page = "info" if "metadata" in name else "lines" if "path" in name or \
                "lines" in name else "timeline"
            d = os.path.join(work, "viewer")
            os.makedirs(d)
            run("viewer --page " + page,
                [xvfb, "-a", "-s", "-screen 0 1600x1000x24", viewer, "--screenshot",
                 os.path.join(d, "shot.png"), "--size", "1280x800", "--page", page, path], cwd)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    slow = sorted(times, reverse=True)[:3]
    print("slowest: " + ", ".join(f"{v} {t:.1f} s" for t, v in slow))
    if failures:
        print(f"hostile: {len(failures)} failure(s) for {path}")
        sys.exit(1)
    print("hostile: ok")


def tui(work):
    """The TUI in a pseudo-terminal (script(1)); 'q' after it has drawn.
    Its raw output stream must not carry a sequence a name injected."""
    if not shutil.which("script"):
        fail("tui", "script(1) is missing (util-linux)")
        return
    log = os.path.join(work, "tui.log")
    cmd = f"{cli} tui {path!r}"  # script -c takes one shell string
    t = time.monotonic()
    e = env()
    e["TERM"] = "xterm-256color"
    p = subprocess.Popen(["script", "-qefc", cmd, log], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, cwd=work)
    try:
        time.sleep(1.5)
        p.stdin.write(b"\t\t\t\tq")
        p.stdin.flush()
        out, err = p.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        fail("tui", f"still running after {LIMIT:.0f} s (killed)", out, err)
        return
    except BrokenPipeError:
        out, err = p.communicate()
    times.append((time.monotonic() - t, "tui"))
    if p.returncode not in allowed_for("tui"):
        fail("tui", f"exit status {p.returncode}", out, err)
    raw = out + err
    if SANITIZER.search(raw):
        fail("tui", "sanitizer report", b"", raw)
    m = TUI_INJECTED.search(raw)
    if m:
        fail("tui", f"the terminal received an injected sequence {m.group(0)!r}: "
             f"{raw[max(0, m.start() - 40):m.start() + 40]!r}")
    for b in FORBIDDEN:
        if b in raw:
            fail("tui", "shows content of a file the run does not own")


main()

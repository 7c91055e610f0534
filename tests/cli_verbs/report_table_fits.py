#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Every table of an HTML report fits the window at each width given: the
table is no wider than the box it scrolls in (at 1400 px the regions table
of a multi-rank run lost its last column).

    report_table_fits.py REPORT.html WIDTH...

Headless Chromium lays the page out; a script added to a copy of the page
writes each table's width and its box's into the DOM, which --dump-dom
prints. Fails (does not skip) when chromium is missing.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

MEASURE = """<script>window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('div.tw > table').forEach(function (t) {
    out.push((t.id || 'table') + ' ' + Math.ceil(t.getBoundingClientRect().width) + ' ' +
             t.parentElement.clientWidth);
  });
  var p = document.createElement('pre');
  p.id = 'sp-measure';
  p.textContent = 'MEA' + 'SURED ' + out.join(';') + ' END';  // not the script's own text
  document.body.appendChild(p);
});</script>"""

report, widths = sys.argv[1], [int(w) for w in sys.argv[2:]]
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    sys.exit("FAIL: chromium is not installed (apt-get install chromium)")
work = tempfile.mkdtemp(prefix="sp-fits-")
try:
    page = os.path.join(work, "page.html")
    with open(report, encoding="utf-8") as f:
        html = f.read()
    with open(page, "w", encoding="utf-8") as f:
        f.write(html.replace("</body>", MEASURE + "</body>"))
    failed = False
    for w in widths:
        p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                            "--user-data-dir=" + os.path.join(work, "profile"),
                            f"--window-size={w},1000", "--dump-dom", "file://" + page],
                           capture_output=True, text=True, timeout=120)
        m = re.search(r"MEASURED ([^<]*) END", p.stdout)
        if not m or not m.group(1):
            print(f"FAIL: {w} px: no measurement (chromium: {p.stderr[-300:]})")
            failed = True
            continue
        for item in m.group(1).split(";"):
            name, tw, bw = item.split()
            ok = int(tw) <= int(bw)
            print(f"{w} px: {name} {tw} px in a box of {bw} px {'ok' if ok else 'TOO WIDE'}")
            if not ok:
                print(f"FAIL: {w} px: {name} is {tw} px wide in a box of {bw} px")
                failed = True
    if failed:
        sys.exit(1)
    print("cli case: ok")
finally:
    shutil.rmtree(work, ignore_errors=True)

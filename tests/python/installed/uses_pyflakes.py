# SPDX-License-Identifier: MIT
"""A user's script whose work happens in an installed package (Debian's
python3-pyflakes): it checks generated modules with pyflakes' API. Run
unedited by check_run_installed.py."""
import sys

import pyflakes.api
import pyflakes.reporter


class Quiet(pyflakes.reporter.Reporter):
    def __init__(self):
        self.problems = 0

    def unusedImport(self, *a):
        self.problems += 1

    def flake(self, message):
        self.problems += 1

    def syntaxError(self, *a):
        self.problems += 1

    def unexpectedError(self, *a):
        self.problems += 1


def module_source(i):
    body = "\n".join(f"def f{j}(x):\n    y = x + {j}\n    return [y * k for k in range(x)]\n"
                     for j in range(40))
    return f"import os\nimport sys\n{body}\nprint(f{i % 40}(3), unknown_{i})\n"


def main(n):
    rep = Quiet()
    for i in range(n):
        pyflakes.api.check(module_source(i), f"gen{i}.py", rep)
    print(f"uses_pyflakes: {n} modules, {rep.problems} problems")


main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)

# SPDX-License-Identifier: MIT
"""What the check scripts share (tests/cli/check_cli.py,
tests/cli/check_pcapng.py, tests/json/check_json.py): the failures of the
run, ok() and fail(), and the main that runs one named check in a
temporary directory (kept when something failed) and exits 0 (pass),
1 (fail), 77 (a program is not built) or 99 (bad usage).

  from checklib import ok, fail, failures, run_check
  sys.exit(run_check(CHECKS, "check_cli.py", "rtel-cli-",
                     [("RTEL_ANALYZE", ANA), ("RTEL_SIM", SIM)]))
"""
import os
import shutil
import sys
import tempfile

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def ok(cond, msg):
    if cond:
        print("ok: " + msg)
    else:
        fail(msg)
    return cond


def run_check(checks, prog, prefix, programs, extra=None):
    """Runs checks[argv[1]](tmp). |programs|: (variable, path) pairs that
    must be executables; |extra|: {check: more pairs} for some checks."""
    if len(sys.argv) != 2 or sys.argv[1] not in checks:
        print("usage: %s %s" % (prog, "|".join(checks)))
        return 99
    for what, exe in list(programs) + list((extra or {}).get(sys.argv[1],
                                                              ())):
        if not exe or not os.access(exe, os.X_OK):
            print("SKIP: %s (%s) is not built" % (what, exe or "unset"))
            return 77
    tmp = tempfile.mkdtemp(prefix=prefix,
                           dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        checks[sys.argv[1]](tmp)
    except RuntimeError as e:
        fail(str(e))
    finally:
        if failures:
            print("files kept in " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("PASS")
    return 0

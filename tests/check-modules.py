#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the shape of lib/ against HACKING.md ("Module map").

1. Every call from one lib/ module to a function of another module must go
   in a direction that HACKING.md allows (its block between the lines
   "module-deps: begin" and "module-deps: end", one line per module:
   "module -> callee callee ..."), and the calls must form no circle.
2. Only the hub (rtel_ctx.c) calls the application: no other lib/ file
   reads a callback out of rtel_callbacks ("cb.on_...").

A module is a file name without "rtel_" and its extension: rtel_flow.c and
rtel_flow.h are "flow". Functions are found by their definitions (any
"rtel__name(" or "rtel_name(" at the start of a definition in a .c file, or
a static inline definition in a .h file); calls by "name(" anywhere else.
Exits 0 if the tree is clean, 1 with one line per finding otherwise.

Usage: check-modules.py [SRCDIR]
"""
import os
import re
import sys

top = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
    "top_srcdir", os.path.join(os.path.dirname(__file__), ".."))
libdir = os.path.join(top, "lib")
hacking = os.path.join(top, "HACKING.md")

DEF_C = re.compile(
    r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(rtel_{1,2}\w+)\s*\([^;{}]*\)\s*\{",
    re.M)
DEF_H = re.compile(
    r"^static\s+inline\s+[\w \t\*]*?\b(rtel__\w+)\s*\(", re.M)
MACRO_H = re.compile(r"^#\s*define\s+(rtel__\w+)\s*\(", re.M)
CALL = re.compile(r"\b(rtel_{1,2}\w+)\s*\(")
# a prototype at the start of a line (not a call)
PROTO = re.compile(r"^[A-Za-z_][^;{}=#]*?\brtel_{1,2}\w+\s*\([^;{}]*\)\s*;", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def module_of(fname):
    base = os.path.splitext(fname)[0]
    return base[5:] if base.startswith("rtel_") else base


def strip(text):
    return STRING.sub('""', COMMENT.sub(" ", text))


def read_allowed():
    allowed = {}
    inside = False
    with open(hacking, encoding="utf-8") as f:
        for line in f:
            if "module-deps: begin" in line:
                inside = True
                continue
            if "module-deps: end" in line:
                break
            if not inside or "->" not in line:
                continue
            left, right = line.split("->", 1)
            allowed[left.strip()] = set(right.split())
    return allowed


def main():
    problems = []
    allowed = read_allowed()
    if not allowed:
        print("check-modules: FAIL: no module-deps block in HACKING.md")
        return 1
    files = sorted(f for f in os.listdir(libdir)
                   if f.endswith((".c", ".h")) and f.startswith("rtel_"))
    text = {}
    owner = {}  # function -> module that defines it
    for f in files:
        with open(os.path.join(libdir, f), encoding="utf-8") as fh:
            text[f] = strip(fh.read())
        mod = module_of(f)
        pats = (DEF_C,) if f.endswith(".c") else (DEF_H, MACRO_H)
        for pat in pats:
            for m in pat.finditer(text[f]):
                owner.setdefault(m.group(1), mod)

    edges = {}
    for f in files:
        mod = module_of(f)
        for m in CALL.finditer(PROTO.sub(" ", text[f])):
            callee = owner.get(m.group(1))
            if callee is None or callee == mod:
                continue
            edges.setdefault(mod, {}).setdefault(callee, m.group(1))
        if mod != "ctx" and re.search(r"\bcb\s*\.\s*on_\w+", text[f]):
            problems.append("%s calls the application (cb.on_*): only "
                            "rtel_ctx.c may" % f)

    mods = sorted({module_of(f) for f in files})
    for mod in mods:
        if mod not in allowed:
            problems.append("module %s is not in HACKING.md's module map" %
                            mod)
    for a in sorted(edges):
        for b, fn in sorted(edges[a].items()):
            if b not in allowed.get(a, set()):
                problems.append("%s calls %s (%s): not an allowed direction "
                                "in HACKING.md" % (a, b, fn))

    # circles, whatever HACKING.md allows
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(edges.get(n, {})):
            if state.get(m) == 1:
                cyc = path[path.index(m):] + [m]
                problems.append("circle: " + " -> ".join(cyc))
            elif m not in state:
                visit(m, path + [m])
        state[n] = 2

    for n in mods:
        if n not in state:
            visit(n, [n])

    for p in problems:
        print("check-modules: FAIL: " + p)
    nedges = sum(len(v) for v in edges.values())
    if problems:
        return 1
    print("check-modules: PASS: %d modules, %d call directions, no circle, "
          "callbacks only from the hub" % (len(mods), nedges))
    return 0


if __name__ == "__main__":
    sys.exit(main())

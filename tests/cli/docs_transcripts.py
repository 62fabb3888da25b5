#!/usr/bin/env python3
"""Runs every transcript of docs/*.md and compares what it prints with what the page shows.

A transcript is a fenced block whose lines start with "$ perp " (or "$ echo "): the command, then the
lines it is shown to print, up to the next "$ " line or the end of the block. A line "..." stands
for any number of printed lines (at the end: the rest of the output). Timings, "0.166 ms", are
compared as "… ms" (they vary from run to run), and runs of spaces as one (table columns widen
with them). The commands run from a scratch folder that sees the
repository's data/ and examples/, with `perp` on the PATH. Exit 1 on any difference, printing the
page, the command and the first line that differs.

Usage: docs_transcripts.py REPO_ROOT PERP_BINARY
"""
import os
import re
import subprocess
import sys
import tempfile

TIMING = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)? ms\b")
SPACES = re.compile(r"  +")


def normal(line):
    return SPACES.sub(" ", TIMING.sub("… ms", line.rstrip()))


def compare(shown, printed):
    """None where `printed` reads as `shown` ("..." standing for any lines, none included), else
    the first difference."""
    at = 0
    gap = False
    for want in shown:
        if want == "...":
            gap = True
            continue
        if gap:
            while at < len(printed) and printed[at] != want:
                at += 1
            if at == len(printed):
                return f"shown after '...' but never printed: {want}"
            gap = False
        elif at >= len(printed) or printed[at] != want:
            got = printed[at] if at < len(printed) else "<nothing>"
            return f"line {at + 1} shown:   {want}\n  line {at + 1} printed: {got}"
        at += 1
    if not gap and at < len(printed):
        return f"line {at + 1} printed but not shown: {printed[at]}"
    return None


def transcripts(page):
    """(command, expected lines) for each "$ perp"/"$ echo" line of the page's fenced blocks."""
    found = []
    block = False
    current = None
    with open(page, encoding="utf-8") as text:
        for raw in text:
            line = raw.rstrip("\n")
            if line.startswith("```"):
                if current:
                    found.append(current)
                current = None
                block = not block
                continue
            if not block:
                continue
            if line.startswith("$ "):
                if current:
                    found.append(current)
                command = line[2:]
                current = (command, []) if re.match(r"(perp|echo) ", command) else None
            elif current is not None:
                current[1].append(line)
    return found


def main():
    root, perp = os.path.abspath(sys.argv[1]), sys.argv[2]
    docs = os.path.join(root, "docs")
    failed = 0
    count = 0
    with tempfile.TemporaryDirectory() as scratch:
        os.makedirs(os.path.join(scratch, "bin"))
        os.symlink(os.path.abspath(perp), os.path.join(scratch, "bin", "perp"))
        for name in ("data", "examples"):
            os.symlink(os.path.join(root, name), os.path.join(scratch, name))
        env = dict(os.environ, PATH=os.path.join(scratch, "bin") + os.pathsep + os.environ.get("PATH", ""))
        for page in sorted(os.listdir(docs)):
            if not page.endswith(".md"):
                continue
            for command, shown in transcripts(os.path.join(docs, page)):
                count += 1
                run = subprocess.run(command, shell=True, cwd=scratch, env=env, capture_output=True, text=True,
                                     timeout=120)
                printed = (run.stdout + run.stderr).splitlines()
                while shown and not shown[-1].strip():
                    shown = shown[:-1]
                difference = compare([normal(x) for x in shown], [normal(x) for x in printed])
                if difference:
                    failed += 1
                    print(f"docs/{page}: $ {command}\n  {difference}")
    print(f"{count - failed} transcripts as shown, {failed} differ")
    return 1 if failed or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

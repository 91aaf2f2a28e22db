#!/usr/bin/env python3
"""Every relative link of the project's Markdown resolves (ctest docs.links_resolve).

Checks README.md, CONTRIBUTING.md, docs/*.md, reports/README.md, proofs/*.md and examples/*.md
(or the files given after --root): every inline link and image ([text](target), ![alt](target)), every reference
definition ([label]: target) and every HTML href/src, outside fenced code blocks and code spans.
A target with a URL scheme (https:, mailto:) is not checked. A relative target must name an
existing file or folder, relative to the Markdown file; a #anchor into a Markdown file (or into
the file itself) must be the slug of one of its headings, by GitHub's rule: the heading's text
lowercased, every character other than a letter, digit, '_', '-' or space dropped, each space
turned into '-', and '-1', '-2', ... appended to repeats.

Run: python3 tests/docs/check_links.py --root <checkout> [FILE.md ...]
Prints each broken link as "file:line: target: reason" and exits 1 if there is one.
"""
import argparse
import glob
import os
import re
import sys
import urllib.parse

DEFAULT_FILES = ["README.md", "CONTRIBUTING.md", "docs/*.md", "reports/README.md", "proofs/*.md", "examples/*.md"]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A code span may run over a line break, never over a blank line.
CODE_SPAN = re.compile(r"(`+)(?:(?!\n[ \t]*\n).)+?\1", re.DOTALL)
# [text](target "title") and ![alt](target): the text may hold one level of brackets and run over
# line breaks, not over a blank line.
INLINE = re.compile(
    r"!?\[(?:[^\[\]\n]|\n(?![ \t]*\n)|\[[^\[\]]*\])*\]"
    r"\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)", re.MULTILINE)
HTML = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']*)[\"']", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:name|id)\s*=\s*[\"']([^\"']*)[\"']", re.IGNORECASE)
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def outside_fences(lines):
    """Yields (line number, line) for the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
            else:
                yield number, line
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[m.end():].strip():
            fence = None


def prose(lines):
    """The file's text with fenced code blocks emptied and code spans blanked (line numbers kept)."""
    kept = [""] * len(lines)
    for number, line in outside_fences(lines):
        kept[number - 1] = line
    return CODE_SPAN.sub(lambda s: re.sub(r"[^\n]", " ", s.group(0)), "\n".join(kept))


def heading_text(raw):
    """The text GitHub renders for a heading's Markdown (links to their text, code to its content)."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", raw)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("`", "")


def slug(text):
    text = heading_text(text).strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in "_- ")
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    """The anchors a Markdown file defines: its headings' slugs and explicit HTML anchors."""
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        seen = {}
        anchors = set()
        for _, line in outside_fences(lines):
            for a in HTML_ANCHOR.findall(line):
                anchors.add(a)
            h = ATX.match(line)
            if not h:
                continue
            base = slug(h.group(2) or "")
            n = seen.get(base, 0)
            seen[base] = n + 1
            anchors.add(base if n == 0 else f"{base}-{n}")
        cache[path] = anchors
    return cache[path]


def targets(text):
    """Yields (line number, target) for every link of the text (a link may run over line breaks)."""
    def line_of(m):
        return text.count("\n", 0, m.start()) + 1
    for m in INLINE.finditer(text):
        yield line_of(m), m.group(1)
    for m in REFERENCE.finditer(text):
        yield line_of(m), m.group(1)
    for m in HTML.finditer(text):
        yield line_of(m), m.group(1)


def check_file(path, root):
    """Returns: (links checked, [(file, line, target, reason)] for the broken ones)."""
    broken = []
    checked = 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    shown = os.path.relpath(path, root)
    for number, target in targets(prose(lines)):
        target = target.strip()
        if target.startswith("<") and target.endswith(">"):
            target = target[1:-1]
        if not target or SCHEME.match(target):
            continue
        checked += 1
        file_part, _, anchor = target.partition("#")
        file_part = urllib.parse.unquote(file_part)
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if file_part.startswith("/"):
            broken.append((shown, number, target, "an absolute path (links must be relative)"))
            continue
        if not os.path.exists(resolved):
            broken.append((shown, number, target, f"no such file or folder ({os.path.relpath(resolved, root)})"))
            continue
        if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
            if urllib.parse.unquote(anchor) not in anchors_of(resolved):
                broken.append((shown, number, target,
                               f"no heading of {os.path.relpath(resolved, root)} has the anchor #{anchor}"))
    return checked, sorted(broken, key=lambda b: b[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True, help="the checkout")
    parser.add_argument("files", nargs="*", help="Markdown files (default: " + ", ".join(DEFAULT_FILES) + ")")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    if args.files:
        files = [os.path.abspath(f) for f in args.files]
        missing = [f for f in files if not os.path.isfile(f)]
        if missing:
            print("check_links: no such file: " + ", ".join(missing), file=sys.stderr)
            return 2
    else:
        files = sorted({p for pattern in DEFAULT_FILES for p in glob.glob(os.path.join(root, pattern))})
        if os.path.join(root, "README.md") not in files:
            print(f"check_links: {root} has no README.md", file=sys.stderr)
            return 2
    broken = []
    checked = 0
    for path in files:
        n, found = check_file(path, root)
        checked += n
        broken += found
    for shown, number, target, reason in broken:
        print(f"{shown}:{number}: {target}: {reason}")
    if broken:
        print(f"check_links: {len(broken)} of {checked} relative link(s) in {len(files)} Markdown file(s) broken")
        return 1
    print(f"check_links: all {checked} relative link(s) in {len(files)} Markdown file(s) resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())

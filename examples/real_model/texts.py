"""Deterministic, offline text corpora for measuring a real language model.

Four domains, all read from files that Debian 12 packages install (or generated
here), so the measurement needs no network once ``PACKAGES`` are installed:

``english``
    *The Debian Administrator's Handbook* (Hertzog & Mas), English original,
    package ``debian-handbook``: a ~500-page book written as prose.  Licence
    GPL-2.0+ or CC-BY-SA-3.0.  One document per HTML page
    (``/usr/share/doc/debian-handbook/html/en-US/*.html``, 127 pages) in book
    order (the pages' ``rel="next"`` chain from ``index.html``).
``python``
    Python source: the ``.py`` files of ``/usr/lib/python3.11`` that the
    packages ``libpython3.11-minimal`` and ``libpython3.11-stdlib`` install
    (licence PSF-2.0; a few files carry other permissive notices, see
    ``/usr/share/doc/libpython3.11-stdlib/copyright``), whole files sorted by
    path.  Skipped: ``test``/``tests`` directories, generated files (header
    says auto-generated / do not edit: codec tables, ``token.py``,
    ``pydoc_data/topics.py``, ``_sysconfigdata*``...) and the data table
    ``html/entities.py``.
``arithmetic``
    Lines ``a + b = c``, ``a - b = c``, ``a * b = c`` with 8-40 digit operands
    and exact results, drawn from ``random.Random(seed)``.  Generated here; no
    licence applies.
``italian``
    The same handbook in its Italian translation
    (``/usr/share/doc/debian-handbook/html/it-IT``), same licence and layout.
    About 30% of its paragraphs are untranslated (English fallback): paragraphs
    of 40+ characters that occur verbatim in the English pages or hold three or
    more English function words are left out, and so are pages that lose more
    than half their text that way (96 of 127 pages are kept).

HTML is reduced to prose: headings, paragraphs, list items, notes and table
cells are kept; navigation, tables of contents, index anchors and ``<pre>``
blocks (command listings and screen output) are dropped; whitespace inside a
paragraph is collapsed, paragraphs are separated by one blank line.  Python
files keep their text, less trailing blanks and runs of more than two blank
lines; files are separated by two blank lines.

Windows: for a document corpus, sequence ``i`` is the first ``tokens`` tokens
of the text that starts at the beginning of document ``s_i`` and runs on
through the following documents, tokenized in one piece and cut at a token
boundary.  Starts are spread evenly over the documents a window can start at,
``s_i = offset + i * stride`` with ``offset`` drawn from
``random.Random(seed)``; a start is moved past the previous window's last
document so windows never overlap (if spreading fails, windows are packed from
the first document).  For ``arithmetic`` each sequence is a fresh run of lines
from one ``random.Random(seed)`` stream.

Sizes with the SmolLM2 tokenizer (vocabulary 49152): english 226k tokens,
italian 236k, python 2.0M, arithmetic unbounded, so 8 x 1024, 4 x 8192 and
2 x 16384 all fit.  A request that does not fit raises ``ValueError`` naming
``tokens`` and the most that is available.
"""
from __future__ import annotations

import hashlib
import html.parser
import random
import re
import subprocess
from pathlib import Path
from typing import Any, Protocol

DOMAINS: tuple[str, ...] = ("english", "python", "arithmetic", "italian")
PACKAGES: tuple[str, ...] = ("debian-handbook", "libpython3.11-minimal", "libpython3.11-stdlib")

HANDBOOK = Path("/usr/share/doc/debian-handbook/html")
HANDBOOK_LANG = {"english": "en-US", "italian": "it-IT"}
HANDBOOK_LICENCE = "GPL-2.0-or-later OR CC-BY-SA-3.0"
PYLIB = Path("/usr/lib/python3.11")
PY_PACKAGES = ("libpython3.11-minimal", "libpython3.11-stdlib")
PY_LICENCE = "PSF-2.0 (some files under other permissive licences, see copyright file)"
_GENERATED = re.compile(r"(?i)auto-?generated|automatically generated|do not edit|generated (from|with|and used)")
_PY_SKIP = {"html/entities.py"}
_ENGLISH = re.compile(r"\b(the|and|of|is|with|which|that|you)\b")  # marks untranslated Italian paragraphs


class Tokenizer(Protocol):
    """ropecheck.lm's: token ids of a text, no BOS."""

    def encode(self, text: str) -> list[int]: ...


def _check(domain: str) -> None:
    if domain not in DOMAINS:
        raise ValueError(f"unknown domain {domain!r}; expected one of {DOMAINS}")


def _version(pkg: str) -> str:
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout:
        raise FileNotFoundError(f"Debian package {pkg!r} is not installed: apt-get install -y {pkg}")
    return r.stdout


def _missing(pkg: str, what: Path) -> FileNotFoundError:
    return FileNotFoundError(f"{what} not found: install the Debian package {pkg!r} (apt-get install -y {pkg})")


# ---------------------------------------------------------------- HTML to prose
class _Prose(html.parser.HTMLParser):
    BLOCK = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "title", "table", "ul", "ol", "dl"}
    ITEM = {"li", "dt", "dd", "tr"}
    SKIP_TAGS = {"head", "script", "style", "pre"}
    SKIP_CLASS = {"toc", "docnav", "indexterm", "list-of-tables", "list-of-examples", "list-of-figures"}
    SKIP_ID = {"banner", "title"}
    VOID = {"br", "img", "meta", "link", "hr", "input", "col", "area", "base", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []
        self.buf: list[str] = []
        self.blocks: list[tuple[str, bool]] = []  # (text, is_item)

    def _flush(self) -> None:
        text = " ".join("".join(self.buf).split())
        if text:  # an item if the innermost open block is li/dt/dd/tr
            inner = [t for t, _ in self.stack if t in self.BLOCK or t in self.ITEM]
            self.blocks.append((text, bool(inner) and inner[-1] in self.ITEM))
        self.buf = []

    def _skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            if tag == "br" and not self._skipping():
                self.buf.append(" ")
            return
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        skip = self._skipping() or tag in self.SKIP_TAGS or bool(classes & self.SKIP_CLASS) \
            or a.get("id") in self.SKIP_ID
        self.stack.append((tag, skip))
        if not skip and (tag in self.BLOCK or tag in self.ITEM):
            self.stack.pop()
            self._flush()
            self.stack.append((tag, skip))
        elif not skip and tag in ("td", "th"):
            self.buf.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID or all(t != tag for t, _ in self.stack):
            return
        while self.stack[-1][0] != tag:
            self.stack.pop()
        if not self.stack[-1][1] and (tag in self.BLOCK or tag in self.ITEM):
            self._flush()
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not self._skipping():
            self.buf.append(data)

    def text(self, drop: frozenset[str]) -> str:
        self._flush()
        blocks = [b for b in self.blocks if not drop or len(b[0]) < 40
                  or (b[0] not in drop and len(_ENGLISH.findall(b[0])) < 3)]
        out: list[str] = []
        for i, (t, item) in enumerate(blocks):
            if i:
                out.append("\n" if item and blocks[i - 1][1] else "\n\n")
            out.append(t)
        return "".join(out)


def html_to_text(source: str, drop: frozenset[str] = frozenset()) -> str:
    """Plain prose of an HTML/XHTML page; if `drop` is given, paragraphs (>= 40 chars) found in it
    or with three or more English function words are left out."""
    p = _Prose()
    p.feed(source)
    p.close()
    return p.text(drop)


# ------------------------------------------------------------------- corpora
def _handbook_files(domain: str) -> list[Path]:
    root = HANDBOOK / HANDBOOK_LANG[domain]
    if not (root / "index.html").is_file():
        raise _missing("debian-handbook", root / "index.html")
    files: list[Path] = []
    name: str | None = "index.html"
    while name and root / name not in files:
        files.append(root / name)
        m = re.search(r'<link rel="next" href="([^"#]+)"', (root / name).read_text(encoding="utf-8"))
        name = m.group(1) if m else None
    return files


def _python_files() -> list[Path]:
    listed: set[str] = set()
    for pkg in PY_PACKAGES:
        r = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True)
        if r.returncode != 0:
            raise _missing(pkg, PYLIB)
        listed.update(line for line in r.stdout.splitlines() if line.endswith(".py"))
    files: list[Path] = []
    for f in sorted(listed):
        p = Path(f)
        if not p.is_relative_to(PYLIB):
            continue
        rel = p.relative_to(PYLIB)
        parts = rel.parts
        if (parts[0] in ("test", "site-packages", "dist-packages") or "tests" in parts or "test" in parts
                or rel.as_posix() in _PY_SKIP or rel.name.startswith("_sysconfigdata")):
            continue
        if not p.is_file():
            raise _missing(PY_PACKAGES[1], p)
        head = "".join(p.read_text(encoding="utf-8", errors="replace").splitlines(True)[:5])
        if not _GENERATED.search(head):
            files.append(p)
    return files


def _clean_code(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.splitlines())
    return re.sub(r"\n{4,}", "\n\n\n", text).strip("\n")


def documents(domain: str) -> list[tuple[str, str]]:
    """(path, normalised text) of every document of a file-backed domain, in order."""
    _check(domain)
    if domain == "arithmetic":
        raise ValueError("arithmetic is generated; it has no documents")
    drop: frozenset[str] = frozenset()
    if domain == "italian":  # untranslated paragraphs fall back to the English original: leave them out
        drop = frozenset(b for _, t in documents("english") for b in t.split("\n"))
    docs = []
    for p in _python_files() if domain == "python" else _handbook_files(domain):
        raw = p.read_text(encoding="utf-8")
        text = _clean_code(raw) if domain == "python" else html_to_text(raw, drop)
        if drop and len(text) < 0.5 * len(html_to_text(raw)):
            continue  # mostly untranslated page
        if text.strip():
            docs.append((str(p), text))
    return docs


def arithmetic_line(rng: random.Random) -> str:
    """One line 'a op b = c': op in + - *, operands of 8-40 digits, c exact."""
    a, b = (rng.randrange(10 ** (n - 1), 10**n) for n in (rng.randint(8, 40), rng.randint(8, 40)))
    op = rng.choice("+-*")
    return f"{a} {op} {b} = {a + b if op == '+' else a - b if op == '-' else a * b}"


# ---------------------------------------------------------------- public API
def provenance(domain: str) -> dict[str, Any]:
    """Source, packages with installed versions, files with sha256, licence."""
    _check(domain)
    if domain == "arithmetic":
        return {"domain": domain, "source": "generated by random.Random(seed): lines 'a op b = c', "
                "op in + - *, operands 8-40 digits, exact results", "packages": {}, "files": [],
                "licence": "none (generated here)"}
    pkgs = ("debian-handbook",) if domain != "python" else PY_PACKAGES
    for p in pkgs:
        _version(p)  # names a missing package before any file is read
    files = [Path(path) for path, _ in documents(domain)]
    source = {"english": "The Debian Administrator's Handbook (R. Hertzog, R. Mas), English original, HTML pages "
              "in book order, reduced to prose",
              "italian": "The Debian Administrator's Handbook (R. Hertzog, R. Mas), Italian translation, HTML "
              "pages in book order, reduced to prose; untranslated paragraphs (found in the en-US pages or "
              "English-looking) and mostly untranslated pages left out",
              "python": "CPython 3.11 standard library .py files (tests, generated files and data tables "
              "skipped), sorted by path"}[domain]
    return {"domain": domain, "source": source, "packages": {p: _version(p) for p in pkgs},
            "files": [{"path": str(p), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in files],
            "licence": PY_LICENCE if domain == "python" else HANDBOOK_LICENCE}


def available_tokens(domain: str, tokenizer: Tokenizer) -> int | None:
    """Tokens in the whole corpus (documents tokenized one by one); None if unbounded."""
    _check(domain)
    if domain == "arithmetic":
        return None
    return sum(len(tokenizer.encode(t)) for _, t in documents(domain))


def _window(docs: list[tuple[str, str]], start: int, tokens: int, sep: str,
            tokenizer: Tokenizer) -> tuple[list[int], int] | None:
    """First `tokens` tokens of the text from docs[start] on, and the last document it reaches."""
    budget = tokens * 3 + 256
    while True:
        parts: list[str] = []
        used, last = 0, start
        for last in range(start, len(docs)):
            text = docs[last][1]
            room = budget - used
            if len(text) > room:
                cut = text.find("\n", room)
                text = text if cut < 0 else text[:cut]
            parts.append(text)
            used += len(text) + len(sep)
            if used >= budget:
                break
        ids = tokenizer.encode(sep.join(parts))
        if len(ids) >= tokens + 16:
            return ids[:tokens], last
        if used < budget:  # ran out of corpus
            return (ids[:tokens], last) if len(ids) >= tokens else None
        budget = int(budget * max(1.3, 1.1 * (tokens + 64) / max(len(ids), 1)))


def sequences(domain: str, tokenizer: Tokenizer, count: int, tokens: int, *, seed: int = 0) -> list[list[int]]:
    """`count` non-overlapping windows of exactly `tokens` token ids (see module docstring)."""
    _check(domain)
    if count < 1 or tokens < 1:
        raise ValueError(f"count and tokens must be positive, got count={count}, tokens={tokens}")
    rng = random.Random(seed)
    if domain == "arithmetic":
        out: list[list[int]] = []
        for _ in range(count):  # each sequence: a fresh run of lines from the one stream
            lines: list[str] = []
            chars, ids = 0, list[int]()
            while len(ids) < tokens + 16:
                want = 1.1 * (tokens + 16) * (chars / len(ids) if ids else 1.2)
                while chars < want:
                    lines.append(arithmetic_line(rng))
                    chars += len(lines[-1]) + 1
                ids = tokenizer.encode("\n".join(lines))
            out.append(ids[:tokens])
        return out
    docs, sep = documents(domain), "\n\n\n" if domain == "python" else "\n\n"
    n, tail, last_start = len(docs), 0, len(docs) - 1
    while last_start > 0 and tail < tokens + 64:  # last document a window can start at
        tail += len(tokenizer.encode(docs[last_start][1] + sep))
        last_start -= tail < tokens + 64
    stride = (last_start + 1) // count
    offset = rng.randrange(max(1, stride))
    for plan in ([offset + i * stride for i in range(count)], [0] * count):  # spread, else packed
        out, next_free = [], 0
        for start in plan:
            start = max(start, next_free)
            got = _window(docs, start, tokens, sep, tokenizer) if start < n else None
            if got is None:
                break
            out.append(got[0])
            next_free = got[1] + 1
        if len(out) == count:
            return out
    total = available_tokens(domain, tokenizer) or 0
    raise ValueError(f"domain {domain!r}: tokens={tokens} x count={count} does not fit; the corpus has "
                     f"{total} tokens over {n} documents, at most about {total // count} tokens per "
                     f"sequence for count={count} (less, since windows start at document boundaries)")


def passages(domain: str, count: int, chars: int = 20000) -> list[str]:
    """`count` raw passages of the domain for the tokenization check: documents spread evenly over
    the corpus (the same rule as the windows' starts, seed 0), each cut to its first `chars`
    characters at a line end; arithmetic: `count` fresh runs of lines."""
    _check(domain)
    rng = random.Random(0)
    if domain == "arithmetic":
        out = []
        for _ in range(count):
            lines: list[str] = []
            while sum(len(x) + 1 for x in lines) < chars:
                lines.append(arithmetic_line(rng))
            out.append("\n".join(lines))
        return out
    docs = documents(domain)
    stride = max(1, len(docs) // count)
    picked = [docs[min(len(docs) - 1, i * stride)][1] for i in range(count)]
    return [t if len(t) <= chars else t[:max(t.rfind("\n", 0, chars), chars // 2)] for t in picked]

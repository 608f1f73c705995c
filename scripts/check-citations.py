#!/usr/bin/env python3
"""scripts/check-citations.py [REPO]: every document the repository cites is in it.

A clone of porta must be readable on its own: a comment that says "see
DESIGN.md, Network" or "STYLE 9", a README line pointing at ../shared/, or a
man page header naming /work/shared/..., sends the reader to a file they do not
have.  This script finds such citations and fails (exit 1) with one line per
finding:

    FILE:LINE: cites X, which is not in the repository

What counts as a citation (a document, not a path the program uses):
  - a file name ending in .md, or a man page NAME.1, relative or absolute:
    relative ones must exist in the repository (from its root, or from the
    citing file's directory); absolute ones must lie inside the repository.
    A relative name that does not exist counts only when it looks like a
    document: it starts with a directory of the repository, reference/,
    shared/ or ../, or it is capitalised (DESIGN.md), or it is one of the
    bare names that once lived outside (cli.md, defaults.md, ...); a test's
    keep.md or a benchmark's relay-table.md is not a citation;
  - "STYLE N" or "STYLE:" (the rules of a style guide kept outside the
    repository; ours is docs/style.md, cited as "docs/style.md §N");
  - "../shared" and any absolute path under /work/ (a machine's checkout,
    not the repository);
  - in source files (not in .md or .1, which may name other projects'
    files), a source path whose first directory is a top-level directory of
    the repository (sandbox/guard.h, tests/unit/x/test_y.c): it must exist,
    so comments follow files that move.
  - a heading cited after an .md of the repository, in quotes
    ('docs/design.md, "Unix sockets"', 'docs/design.md ("Unix sockets")'):
    the file must have a heading that starts with it (case aside), so a
    section renamed or never written is found.
Not citations: URLs, #include lines, absolute paths outside /work (/proc,
/sys, /dev, /tmp, /etc, /usr, /run are paths the code uses), build output.
In .c and .h files only comments are read (string literals are data: a test
may well use "/work/.bashrc" as a path); every other file is read whole.

Files: those git tracks (or, without git, the tree minus .git and build*),
with the extensions .c .h .py .sh .cmake .md .1, CMakeLists.txt, and any
file whose first line is a #! (bench/ and .ci/ scripts).

Exit 0: nothing found; 1: findings; 2: usage.  --self-test checks the
checker against a small tree it makes (exit 0 when it behaves).
"""
import os
import re
import subprocess
import sys
import tempfile

EXTENSIONS = (".c", ".h", ".py", ".sh", ".cmake", ".md", ".1")
SKIP_DIRS = ("tests/fuzz/corpus/",)  # fuzz inputs: bytes, not text
SELF = "scripts/check-citations.py"    # its examples are citations on purpose

URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s)>\]\"'`]+", re.I)
INCLUDE = re.compile(r"^\s*#\s*include\b.*$", re.M)
# A document name: NAME.md, or a man page NAME.1 (a letter first, so that
# 127.0.0.1 and version numbers are not taken for one).
DOC = re.compile(r"(?<![\w./~-])([\w./~-]+\.(?:md|1))(?![\w/-])")
DOC_NAME = re.compile(r"(?:[\w.-]+\.md|[A-Za-z][\w-]*\.1)")
STYLE = re.compile(r"\bSTYLE\b(?=(?:[\s*#]|//)*(?:\d|:))")
SHARED = re.compile(r"(?<![\w.-])\.\./shared\b[\w./-]*")
WORK = re.compile(r"(?<![\w.~-])/work(?:/[\w.@+-]+)+/?|(?<![\w.~-])/work\b")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout
        return sorted(p for p in out.decode(errors="replace").split("\0") if p)
    except (OSError, subprocess.CalledProcessError):
        found = []
        for d, dirs, files in os.walk(root):
            rel = os.path.relpath(d, root)
            dirs[:] = [x for x in dirs if x != ".git" and not (rel == "." and x.startswith("build"))]
            for f in files:
                found.append(os.path.normpath(os.path.join(rel, f)))
        return sorted(found)


def wanted(root, path):
    if path == SELF or any(path.startswith(s) for s in SKIP_DIRS):
        return False
    base = os.path.basename(path)
    if base == "CMakeLists.txt" or base.endswith(EXTENSIONS):
        return True
    try:
        with open(os.path.join(root, path), "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


C_TOKEN = re.compile(r"/\*.*?(?:\*/|\Z)|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n])*'?",
                     re.S)


def c_comments(text):
    """The text of a C file with everything but comments blanked out (newlines
    kept, so line numbers hold).  String and character literals are skipped."""
    out, last = [], 0
    for m in C_TOKEN.finditer(text):
        out.append(re.sub(r"[^\n]", " ", text[last:m.start()]))
        tok = m.group(0)
        out.append(tok if tok[0] == "/" else re.sub(r"[^\n]", " ", tok))
        last = m.end()
    out.append(re.sub(r"[^\n]", " ", text[last:]))
    return "".join(out)


def blank(match):
    return re.sub(r"[^\n]", " ", match.group(0))


# Bare names of documents that once lived outside the repository; any other
# bare lowercase name (keep.md, relay-table.md) is more likely a file a test
# or a benchmark makes than a citation.
KNOWN_DOCS = {"cli.md", "defaults.md", "escape-corpus.md", "design.md", "style.md"}


def looks_cited(root, path):
    """Is a relative document name that does not exist a citation?  Yes when
    it names a directory of the repository (or reference/, shared/, ../), when
    it is capitalised like DESIGN.md, or when it is one of KNOWN_DOCS."""
    parts = path.split("/")
    if len(parts) > 1:
        first = parts[0]
        return first in ("..", "reference", "shared") or (
            first not in (".", "") and not first.startswith(".")
            and os.path.isdir(os.path.join(root, first)))
    return path.endswith(".md") and (path[0].isupper() or path in KNOWN_DOCS)


def repo_path(root, path, citing):
    """The cited document's real path inside the repository, or None."""
    if path.startswith("~"):
        return None
    if os.path.isabs(path):
        real = os.path.normpath(path)
        inside = real == root or real.startswith(root + os.sep)
        return real if inside and os.path.exists(real) else None
    for base in (root, os.path.join(root, os.path.dirname(citing))):
        cand = os.path.normpath(os.path.join(base, path))
        if (cand == root or cand.startswith(root + os.sep)) and os.path.exists(cand):
            return cand
    return None


# A quoted heading right after a cited document: ', "Name"', ' "Name"',
# ' ("Name"' (a comment's line break and its leading '*' or '#' between).
HEADING_CITE = re.compile(r'(?:\s|[*#]|//)*(?:,|\()?(?:\s|[*#]|//)*"([^"\n]{2,100})"')
_headings = {}


def headings(path):
    if path not in _headings:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                _headings[path] = [re.sub(r"^#+\s*", "", ln).strip().lower()
                                   for ln in f if re.match(r"#{1,6}\s", ln)]
        except OSError:
            _headings[path] = []
    return _headings[path]


def in_repo(root, path, citing):
    """Does the cited document exist in the repository?"""
    return repo_path(root, path, citing) is not None


SOURCE_EXT = r"(?:c|h|py|sh|cmake|txt)"


def source_pattern(root, files):
    tops = sorted({f.split("/", 1)[0] for f in files if "/" in f and not f.startswith(".")})
    if not tops:
        return None
    return re.compile(r"(?<![\w./~-])((?:" + "|".join(map(re.escape, tops)) + r")/[\w./-]*\."
                      + SOURCE_EXT + r")(?![\w/-])")


def py_prose(text):
    """TEXT with everything but comments and triple-quoted strings blanked
    (same length and lines, so positions keep their line numbers)."""
    import io
    import tokenize
    keep = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT or (
                    tok.type == tokenize.STRING and tok.string.lstrip("rRbBuUfF")[:3] in ('"""', "\'\'\'")):
                keep.append((tok.start, tok.end))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text
    lines = text.splitlines(keepends=True)
    offs = [0]
    for ln in lines:
        offs.append(offs[-1] + len(ln))
    out = [c if c == "\n" else " " for c in text]
    for (sl, sc), (el, ec) in keep:
        a, b = offs[sl - 1] + sc, offs[el - 1] + ec
        out[a:b] = text[a:b]
    return "".join(out)


def scan_text(root, path, text, source=None):
    """Findings (line, cited) in one file's text."""
    if path.endswith((".c", ".h")):
        text = c_comments(text)
    else:
        text = INCLUDE.sub(blank, text)
    text = URL.sub(blank, text)
    found = []

    def line_of(pos):
        return text.count("\n", 0, pos) + 1

    docs = [m for m in DOC.finditer(text) if DOC_NAME.fullmatch(m.group(1).rsplit("/", 1)[-1])]
    for m in docs:
        cited = m.group(1)
        if os.path.isabs(cited) and not cited.startswith("/work/"):
            continue  # a run-time path (/tmp/x.md): not a document of ours
        if os.path.isabs(cited) or looks_cited(root, cited):
            if not in_repo(root, cited, path):
                    found.append((line_of(m.start(1)), cited))
                    continue
        real = repo_path(root, cited, path) if cited.endswith(".md") else None
        h = HEADING_CITE.match(text, m.end(1)) if real else None
        if h:
            want = re.sub(r"\s+", " ", h.group(1)).strip().lower()
            if not any(x == want or x.startswith(want + " ") or x.startswith(want + ":")
                       or x.startswith(want + ",") for x in headings(real)):
                found.append((line_of(m.start(1)), '%s "%s"' % (cited, h.group(1))))
    for m in STYLE.finditer(text):
        tail = re.match(r"STYLE(?:[\s*#]|//)*(\d+|:)", text[m.start():])
        found.append((line_of(m.start()), "STYLE " + tail.group(1) if tail.group(1) != ":"
                      else "STYLE"))
    for m in SHARED.finditer(text):
        found.append((line_of(m.start()), m.group(0)))
    if source is not None and not path.endswith((".md", ".1")):
        # in Python, only comments and docstrings: a test's string literals
        # may name files of a tree it makes (tests/layout)
        src_text = py_prose(text) if path.endswith(".py") else text
        for m in source.finditer(src_text):
            if not in_repo(root, m.group(1), path):
                found.append((line_of(m.start(1)), m.group(1)))
    doc_spans = {(line_of(m.start(1)), m.group(1)) for m in docs}
    for m in WORK.finditer(text):
        ln = line_of(m.start())
        # an absolute .md path under /work was reported above already
        if any(ln == l and d.startswith(m.group(0).rstrip("/")) for l, d in doc_spans):
            continue
        found.append((ln, m.group(0)))
    return sorted(set(found))


def scan(root):
    root = os.path.realpath(root)
    findings = []
    files = tracked_files(root)
    source = source_pattern(root, files)
    for path in files:
        if not wanted(root, path):
            continue
        try:
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                text = f.read()
        except (OSError, IsADirectoryError):
            continue
        for line, cited in scan_text(root, path, text, source):
            what = "a heading it does not have" if cited.endswith('"') else "not in the repository"
            findings.append(f"{path}:{line}: cites {cited}, which is {what}")
    return findings


SELF_TEST_FILES = {
    "docs/present.md": ("# present\nSee docs/present.md and ../docs/present.md? no: present.md\n"
                        "## A section (with more)\n"),
    "src/b.h": ('/* docs/present.md, "A section" holds; docs/present.md ("Gone section")\n'
                ' * does not; docs/present.md,\n * "present" spans lines */\n'),
    "docs/tool.1": ".\\\" fine\n",
    "src/a.c": (
        '/* src/a.c: see DESIGN.md, Network (STYLE 9) and docs/present.md. */\n'
        '#include "docs/missing.md"\n'
        'static const char *p = "/work/.bashrc";  /* data, not a citation */\n'
        'static const char *q = "DESIGN.md";\n'
        '/* 127.0.0.1 and libfoo.so.1 and porta(1) are not documents; docs/tool.1 is */\n'
        '/* https://example.com/README.md is a URL; /tmp/out.md a run-time path */\n'
        '/* the rule (STYLE\n * 13) spans lines; STYLE: one message */\n'
        '// reference/cli.md\n'
        '/* moved: src/gone.c; here: src/a.c, docs/tool.1 */ char *r = "src/gone.h";\n'),
    "scripts/x.sh": "#!/bin/sh\n# copies ../shared/ beside the tree\ncd /work/main && make\n",
    "README.md": ("Design: `/work/shared/DESIGN.md`; man page `docs/tool.1`; style `docs/style.md`.\n"
                  "Other projects' files are not ours to check: src/tls.c, tests/try-syscall.c.\n"),
    "notes.txt": "DESIGN.md (not a scanned file)\n",
    "tests/t.py": ('"""the contract of cli.md"""\n'
                   'plant(ws, {"keep.md": "x", ".claude/notes.md": "y"})  # ./keep.md, n/new.md\n'),
}

SELF_TEST_EXPECTED = [
    "README.md:1: cites /work/shared/DESIGN.md, which is not in the repository",
    "README.md:1: cites docs/style.md, which is not in the repository",
    "scripts/x.sh:2: cites ../shared/, which is not in the repository",
    "scripts/x.sh:3: cites /work/main, which is not in the repository",
    "src/a.c:1: cites DESIGN.md, which is not in the repository",
    "src/a.c:1: cites STYLE 9, which is not in the repository",
    "src/a.c:7: cites STYLE 13, which is not in the repository",
    "src/a.c:8: cites STYLE, which is not in the repository",
    "src/a.c:9: cites reference/cli.md, which is not in the repository",
    "src/a.c:10: cites src/gone.c, which is not in the repository",
    "tests/t.py:1: cites cli.md, which is not in the repository",
    'src/b.h:1: cites docs/present.md "Gone section", which is a heading it does not have',
]


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in SELF_TEST_FILES.items():
            p = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                f.write(text)
        got = sorted(scan(tmp))  # not a git repository: the tree is walked
    want = sorted(SELF_TEST_EXPECTED)
    if got == want:
        print(f"check-citations: self-test passed ({len(want)} findings as expected)")
        return 0
    for line in sorted(set(want) - set(got)):
        print(f"check-citations: self-test: missed: {line}")
    for line in sorted(set(got) - set(want)):
        print(f"check-citations: self-test: false positive: {line}")
    return 1


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    root = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.isdir(root):
        print(f"check-citations: {root}: not a directory", file=sys.stderr)
        return 2
    findings = scan(root)
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

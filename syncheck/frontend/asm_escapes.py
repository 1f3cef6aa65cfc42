"""Inline PTX as nvcc reads it: `%name` registers that are not operand references.

nvcc passes a `%` that starts no operand reference through to the PTX, so inline asm may
name its own registers and special registers with one `%`:
`asm("{ .reg.pred %p; setp.ne.u32 %p, %1, 0; @%p mov.u32 %0, %laneid; }" : ...)`.
clang follows GCC's template syntax, rejects such a `%` ("invalid % escape in inline
assembly string") and drops the statement, and syncheck then could not analyze the
function. The parse therefore reads a copy of the source (never the file) in which every
such `%` of an extended asm template is written `%%`, which clang reads as the same `%`.

Findings, notes and byte offsets refer to the file as it is, so the copy keeps every line
and, where it can, every column and offset: each added `%` takes the place of a space of
the same string literal whose removal joins nothing (a second space of a run, or a space
next to PTX punctuation), else of spaces between the literal and the next token on its
line. Only when neither has room does the rest of that line move (by one column each).
"""

from __future__ import annotations

import re

# What clang's GCC-style template parser accepts after a `%` (GCCAsmStmt::AnalyzeAsmString):
# `%%`, `%{`, `%|`, `%}`, `%=`, an operand `%0` or `%[name]`, or one modifier letter before
# either (`%w0`, `%c[name]`). Anything else is an invalid escape.
_ACCEPTED_AFTER_PERCENT = "%{|}=[0123456789"

_ASM_KEYWORDS = frozenset(("asm", "__asm", "__asm__"))
_ASM_QUALIFIERS = frozenset(("volatile", "__volatile", "__volatile__", "inline", "__inline",
                             "__inline__", "goto"))
# A space next to one of these can go without joining two PTX words.
_PTX_PUNCTUATION = frozenset(",;{}[]()|:")

_RAW_STRING_PREFIXES = frozenset(("R", "LR", "uR", "UR", "u8R"))
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_WORD_CHAR = re.compile(r"\w")
_NUMBER = re.compile(r"[\w.']+")  # a number, digit separators included


def with_ptx_names_escaped(text: str) -> str:
    """``text`` with each `%` that clang rejects in an extended asm template doubled (see the
    module's doc); the text itself when there is none."""
    if "asm" not in text or "%" not in text:
        return text
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in text, in order
    for literals in _asm_templates(text):
        for start, end in literals:
            edits += _literal_edits(text, start, end)
    if not edits:
        return text
    pieces, last = [], 0
    for start, end, replacement in edits:
        pieces += [text[last:start], replacement]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _literal_edits(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """Edits for the string literal text[start:end] (quotes included): the literal rewritten
    with its rejected `%` doubled, and the spaces after it that make room, if any."""
    body = text[start + 1:end - 1]
    rejected = _rejected_percents(body)
    if not rejected:
        return []
    removable = _removable_spaces(body)[:len(rejected)]
    drop = set(removable)
    double = set(rejected)
    out = []
    for i, ch in enumerate(body):
        if i in drop:
            continue
        out.append("%%" if i in double else ch)
    edits = [(start + 1, end - 1, "".join(out))]
    missing = len(rejected) - len(removable)
    if missing:
        # room from the blanks after the literal, up to the next token on the same line
        # (not before a word: `"..."x` would read as a literal suffix)
        after = end
        while after < len(text) and after - end < missing and text[after] in " \t":
            after += 1
        if after > end and (after >= len(text) or not _WORD_CHAR.match(text[after])):
            edits.append((end, after, ""))
    return edits


def _rejected_percents(body: str) -> list[int]:
    """Positions in a literal's spelling of each `%` that clang's template parser rejects."""
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2  # an escape sequence: `\%` is no `%` of the template's syntax either way
            continue
        if ch != "%":
            i += 1
            continue
        following = body[i + 1:i + 2]
        if following and following in _ACCEPTED_AFTER_PERCENT:
            i += 2
        elif following.isalpha() and body[i + 2:i + 3] and body[i + 2] in "[0123456789":
            i += 3  # a modifier and an operand (`%w0`): clang accepts it
        elif following == "":
            i += 1  # the template may go on in the next literal: leave it to clang
        else:
            out.append(i)
            i += 1
    return out


def _removable_spaces(body: str) -> list[int]:
    """Positions in a literal's spelling of spaces whose removal leaves the PTX words as they
    are: first the second and later spaces of each run, then single spaces next to
    punctuation. Never the first or last character (a neighbouring literal may need it)."""
    runs, single = [], []
    for i in range(1, len(body) - 1):
        if body[i] not in " \t":
            continue
        if body[i - 1] in " \t":
            runs.append(i)
        elif body[i + 1] not in " \t" and (body[i - 1] in _PTX_PUNCTUATION
                                           or body[i + 1] in _PTX_PUNCTUATION):
            single.append(i)
    return runs + single


def _asm_templates(text: str):
    """The string literals of each extended asm statement's template (a template followed by
    `:`), as lists of (start, end) spans in text. Comments, string and character literals
    are skipped, so `asm` in them starts nothing; macro bodies are scanned like code."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "/" and text.startswith("//", i):
            i = _line_comment_end(text, i)
        elif ch == "/" and text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
        elif ch == '"':
            i = _string_end(text, i)
        elif ch == "'":
            i = _char_end(text, i)
        elif ch.isalpha() or ch == "_":
            m = _IDENTIFIER.match(text, i)
            word = m.group(0)
            if word in _RAW_STRING_PREFIXES and text.startswith('"', m.end()):
                i = _raw_string_end(text, m.end())  # R"delim( ... )delim", also u8R etc.
                continue
            i = m.end()
            if word in _ASM_KEYWORDS:
                literals, after = _template_after_keyword(text, i)
                if literals and text.startswith(":", after):
                    yield literals
                if literals:
                    i = literals[-1][1]
        elif ch.isdigit():
            i = _NUMBER.match(text, i).end()
        else:
            i += 1


def _template_after_keyword(text: str, i: int) -> tuple[list[tuple[int, int]], int]:
    """After `asm`: its qualifiers, `(`, the adjacent string literals of the template. The
    literals' spans and where the next token starts ([] when the template is no literal)."""
    i = _skip_blank(text, i)
    while True:
        m = _IDENTIFIER.match(text, i)
        if m is None or m.group(0) not in _ASM_QUALIFIERS:
            break
        i = _skip_blank(text, m.end())
    if not text.startswith("(", i):
        return [], i
    i = _skip_blank(text, i + 1)
    literals = []
    while text.startswith('"', i):
        end = _string_end(text, i)
        if text[end - 1:end] != '"' or end - i < 2:
            return [], i  # unterminated: leave the statement as it is
        literals.append((i, end))
        i = _skip_blank(text, end)
    return literals, i


def _skip_blank(text: str, i: int) -> int:
    """Past white space, comments and line continuations (asm inside a macro body)."""
    n = len(text)
    while i < n:
        if text[i] in " \t\r\n\f\v":
            i += 1
        elif text.startswith("\\\n", i):
            i += 2
        elif text.startswith("\\\r\n", i):
            i += 3
        elif text.startswith("//", i):
            i = _line_comment_end(text, i)
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
        else:
            break
    return i


def _line_comment_end(text: str, i: int) -> int:
    """The newline ending a `//` comment (a line continuation goes on with the comment)."""
    while True:
        nl = text.find("\n", i)
        if nl < 0:
            return len(text)
        if text[nl - 1:nl] == "\\" or text[nl - 2:nl] == "\\\r":
            i = nl + 1
            continue
        return nl


def _string_end(text: str, i: int) -> int:
    """Just past the closing quote of the string literal opening at text[i] (or at the end of
    its line when it is not closed)."""
    return _quoted_end(text, i, '"')


def _char_end(text: str, i: int) -> int:
    return _quoted_end(text, i, "'")


def _quoted_end(text: str, i: int, quote: str) -> int:
    j, n = i + 1, len(text)
    while j < n:
        ch = text[j]
        if ch == "\\":
            j += 2
        elif ch == quote:
            return j + 1
        elif ch == "\n":
            return j
        else:
            j += 1
    return n


def _raw_string_end(text: str, quote: int) -> int:
    """Just past a raw string literal whose opening quote is at text[quote]."""
    paren = text.find("(", quote + 1, quote + 18)
    if paren < 0:
        return quote + 1
    close = text.find(")" + text[quote + 1:paren] + '"', paren + 1)
    return len(text) if close < 0 else close + paren - quote + 1

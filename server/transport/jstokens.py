"""A JavaScript tokenizer just good enough to find a module's imports and
exports (``server.transport.bundle``).

It knows what can hide an ``import`` or a brace from a naive search:
strings, template literals (with their ``${…}`` parts tokenized as
code), comments and regular expression literals.  Whether ``/`` starts a
regular expression or divides is decided by the token before it, as
every such tokenizer does: a regular expression may not follow a value
(a name that is not a keyword, a number, a string, ``)``, ``]`` or
``}``).  It does not check the grammar: the browser does, and the
bundle's tests run ``node --check`` on the result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PUNCTUATORS = sorted(
    """>>>= ... === !== **= <<= >>= >>> &&= ||= ??= => == != <= >= && || ?? ?. ++ -- += -= *= /= %= &= |= ^= ** << >>
    { } ( ) [ ] ; , < > + - * / % & | ^ ! ~ ? : = . @""".split(),
    key=len,
    reverse=True,
)
KEYWORDS_BEFORE_EXPRESSION = frozenset(
    "return typeof instanceof in of new delete void throw case do else yield await extends".split()
)
"""Keywords after which ``/`` starts a regular expression, not a division."""
NAME = re.compile(r"#?[\w$\u0080-\U0010ffff]+")
NUMBER = re.compile(r"\.?\d[\w.]*")
SPACE = re.compile(r"[ \t\f\v\u00a0\ufeff\u2028\u2029]+")


class TokenError(ValueError):
    """Source the tokenizer cannot read (an unterminated string, say)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Token:
    kind: str
    """``name``, ``punct``, ``string``, ``template``, ``number`` or ``regex``."""
    text: str
    start: int
    end: int
    line: int
    newline_before: bool
    depth: int
    """Brackets of any kind open around the token: 0 at a module's top level."""


@dataclass(frozen=True)
class Scanned:
    tokens: list[Token]
    comments: list[tuple[int, int]]
    """The start and end of each comment, which the bundle leaves out."""


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source
        self.at = 0
        self.line = 1
        self.tokens: list[Token] = []
        self.comments: list[tuple[int, int]] = []
        self.newline = True
        self.depth = 0
        self.opened: list[str] = []
        """What each open ``{`` is: a block (``{``) or a template's ``${``."""
        self.open_lines: list[int] = []
        """The line of each bracket still open, for the error if one never closes."""

    def fail(self, reason: str) -> TokenError:
        return TokenError(self.line, reason)

    def emit(self, kind: str, start: int) -> None:
        text = self.source[start : self.at]
        self.tokens.append(Token(kind, text, start, self.at, self.line, self.newline, self.depth))
        self.line += text.count("\n")
        self.newline = False

    def regex_allowed(self) -> bool:
        if not self.tokens:
            return True
        last = self.tokens[-1]
        if last.kind == "name":
            return last.text in KEYWORDS_BEFORE_EXPRESSION
        return last.kind == "punct" and last.text not in (")", "]", "}")

    def skip_space(self) -> bool:
        """Skip blanks, line breaks and comments; False at the end."""
        source = self.source
        while self.at < len(source):
            char = source[self.at]
            if char == "\n" or char == "\r":
                self.line += char == "\n"
                self.newline = True
                self.at += 1
            elif (blank := SPACE.match(source, self.at)) is not None:
                self.at = blank.end()
            elif source.startswith("//", self.at):
                end = source.find("\n", self.at)
                end = len(source) if end < 0 else end
                self.comments.append((self.at, end))
                self.at = end
            elif source.startswith("/*", self.at):
                end = source.find("*/", self.at + 2)
                if end < 0:
                    raise self.fail("unterminated comment")
                comment = source[self.at : end + 2]
                self.line += comment.count("\n")
                self.newline = self.newline or "\n" in comment
                self.comments.append((self.at, end + 2))
                self.at = end + 2
            else:
                return True
        return False

    def quoted(self, quote: str) -> None:
        source, at = self.source, self.at + 1
        while at < len(source) and source[at] != quote:
            if source[at] == "\n":
                raise self.fail("unterminated string")
            at += 2 if source[at] == "\\" else 1
        if at >= len(source):
            raise self.fail("unterminated string")
        start, self.at = self.at, at + 1
        self.emit("string", start)

    def template(self, start: int) -> None:
        """The literal text of a template from ``self.at`` (just past a
        backtick or a ``}`` that closes a ``${``) to its end or next ``${``."""
        source, at = self.source, self.at
        while at < len(source):
            if source[at] == "\\":
                at += 2
            elif source[at] == "`":
                self.at = at + 1
                self.emit("template", start)
                return
            elif source.startswith("${", at):
                self.at = at + 2
                self.emit("template", start)
                self.opened.append("${")
                self.open_lines.append(self.line)
                self.depth += 1
                return
            else:
                at += 1
        raise self.fail("unterminated template literal")

    def regex(self) -> None:
        source, at, in_class = self.source, self.at + 1, False
        while at < len(source) and (in_class or source[at] != "/"):
            if source[at] == "\n":
                raise self.fail("unterminated regular expression")
            if source[at] == "\\":
                at += 1
            elif source[at] == "[":
                in_class = True
            elif source[at] == "]":
                in_class = False
            at += 1
        if at >= len(source):
            raise self.fail("unterminated regular expression")
        flags = NAME.match(source, at + 1)
        start, self.at = self.at, flags.end() if flags else at + 1
        self.emit("regex", start)

    def punctuator(self) -> None:
        source, start = self.source, self.at
        text = next((p for p in PUNCTUATORS if source.startswith(p, start)), None)
        if text is None:
            raise self.fail(f"unexpected character {source[start]!r}")
        if text in ("}", ")", "]"):
            if self.depth == 0:
                raise self.fail(f"unbalanced {text!r}")
            self.depth -= 1
            self.open_lines.pop()
            if text == "}" and self.opened and self.opened.pop() == "${":
                self.at += 1
                self.template(start)
                return
        self.at += len(text)
        self.emit("punct", start)
        if text in ("{", "(", "["):
            self.depth += 1
            self.open_lines.append(self.line)
            if text == "{":
                self.opened.append("{")

    def read(self) -> Scanned:
        source = self.source
        while self.skip_space():
            char, start = source[self.at], self.at
            if char in "'\"":
                self.quoted(char)
            elif char == "`":
                self.at += 1
                self.template(start)
            elif char == "/" and self.regex_allowed():
                self.regex()
            elif (number := NUMBER.match(source, start)) is not None:
                self.at = number.end()
                self.emit("number", start)
            elif (name := NAME.match(source, start)) is not None:
                self.at = name.end()
                self.emit("name", start)
            else:
                self.punctuator()
        if self.open_lines:
            raise TokenError(self.open_lines[-1], "a bracket opened here is never closed")
        return Scanned(self.tokens, self.comments)


def scan(source: str) -> Scanned:
    """The tokens of ``source`` (comments and blanks left out) and where its comments are."""
    return _Reader(source).read()

"""Markdown: front matter carries title, tags, space and ACL; headings become sections.

The body is reduced to readable plain text (no link targets, emphasis markers or fences)
because that text is what gets indexed and shown in snippets. html.py reuses the parser on
trafilatura's Markdown output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import frontmatter
import yaml

from pipelines.conversion._common import (
    ConversionError,
    build_document,
    decode_text,
    stem_title,
    string_list,
)
from pipelines.documents import Document, FailureReason, Section
from pipelines.sources.item import SourceItem

_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s+\S+")
_BLOCKQUOTE = re.compile(r"^\s*(?:>\s?)+")
_BULLET = re.compile(r"^(\s*)[-*+][ \t]+")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_INLINE_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # image -> alt text
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # inline link -> its text
    (re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),  # reference link -> its text
    (re.compile(r"<((?:https?|mailto):[^>\s]+)>"), r"\1"),  # autolink -> the URL
    (re.compile(r"</?[A-Za-z][^>]*>"), ""),  # inline HTML tags
    (re.compile(r"(\*\*|__)(\S(?:.*?\S)?)\1"), r"\2"),  # strong
    (re.compile(r"(?<!\w)([*_])(\S(?:.*?\S)?)\1(?!\w)"), r"\2"),  # emphasis
    (re.compile(r"~~(\S(?:.*?\S)?)~~"), r"\1"),  # strikethrough
)
_PROTECT_BASE = 0xE000  # private-use code points stand in for escaped characters


def _protect(match: re.Match[str]) -> str:
    return chr(_PROTECT_BASE + ord(match.group(1)))


def _unprotect(text: str) -> str:
    return re.sub(r"[\ue000-\ue07f]", lambda m: chr(ord(m.group(0)) - _PROTECT_BASE), text)


def plain_inline(text: str) -> str:
    """Strip inline Markdown syntax; code spans keep their content verbatim."""
    text = _ESCAPE.sub(_protect, text)
    parts = _CODE_SPAN.split(text)
    out: list[str] = []
    # re.split with two groups yields: text, fence, code, text, fence, code, ...
    for index in range(0, len(parts), 3):
        segment = parts[index]
        for pattern, replacement in _INLINE_RULES:
            segment = pattern.sub(replacement, segment)
        out.append(segment)
        if index + 2 < len(parts):
            out.append(parts[index + 2].strip())
    return _unprotect("".join(out))


def _plain_line(line: str) -> str | None:
    """One body line as plain text, or None for lines that are pure syntax."""
    if _THEMATIC_BREAK.match(line) or _TABLE_RULE.match(line) or _LINK_DEFINITION.match(line):
        return None
    line = _BLOCKQUOTE.sub("", line)
    bullet = _BULLET.match(line)
    if bullet:
        return f"{bullet.group(1)}- {plain_inline(line[bullet.end() :])}"
    return plain_inline(line)


@dataclass
class _Block:
    title: str
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MarkdownBody:
    text: str
    sections: tuple[Section, ...]
    first_h1: str | None


def parse_markdown(body: str) -> MarkdownBody:
    """Plain text plus one section per ATX heading; text before the first heading is an
    untitled section. A document without headings has no sections (like plain text).
    Lines inside fenced code blocks are kept verbatim and never taken for headings."""
    blocks = [_Block(title="")]
    text_lines: list[str] = []
    first_h1: str | None = None
    fence: str | None = None
    for line in body.splitlines():
        fence_match = _FENCE.match(line)
        if fence is not None:
            if (
                fence_match
                and fence_match.group(1)[0] == fence[0]
                and len(fence_match.group(1)) >= len(fence)
                and not line.strip().lstrip(fence[0])
            ):
                fence = None
            else:
                blocks[-1].lines.append(line)
                text_lines.append(line)
            continue
        if fence_match:
            fence = fence_match.group(1)
            continue
        heading = _ATX_HEADING.match(line)
        if heading:
            title = plain_inline(heading.group(2) or "").strip()
            if len(heading.group(1)) == 1 and first_h1 is None and title:
                first_h1 = title
            blocks.append(_Block(title=title))
            text_lines.extend(["", title, ""])
            continue
        plain = _plain_line(line)
        if plain is not None:
            blocks[-1].lines.append(plain)
            text_lines.append(plain)
    sections = tuple(
        Section(title=block.title, text="\n".join(block.lines).strip(), position=index)
        for index, block in enumerate(blocks)
    )
    return MarkdownBody(
        text="\n".join(text_lines),
        sections=sections if len(blocks) > 1 else (),
        first_h1=first_h1,
    )


def _scalar(value: object) -> str:
    return str(value).strip() if value is not None else ""


def convert_markdown(item: SourceItem, space: str) -> Document:
    raw = decode_text(item.data)
    try:
        post = frontmatter.loads(raw)
    except yaml.YAMLError as exc:
        # Never index without its front matter: it may carry the ACL.
        raise ConversionError(FailureReason.CORRUPT, f"invalid front matter: {exc}") from exc
    meta = post.metadata
    parsed = parse_markdown(post.content)
    title = _scalar(meta.get("title")) or parsed.first_h1 or stem_title(item.uri)
    acl = string_list(meta.get("acl_groups"), "acl_groups") + string_list(meta.get("acl"), "acl")
    return build_document(
        item,
        _scalar(meta.get("space")) or space,
        fmt="markdown",
        title=title,
        text=parsed.text,
        sections=parsed.sections,
        tags=string_list(meta.get("tags"), "tags"),
        acl_groups=tuple(dict.fromkeys(acl)),
    )

"""Markdown conversion: front matter, headings as sections, readable plain text."""

from __future__ import annotations

from pipelines.conversion import convert
from pipelines.conversion.markdown import parse_markdown, plain_inline
from pipelines.documents import ConversionFailure, Document, FailureReason, document_id
from pipelines.sources.item import SourceItem

WITH_FRONT_MATTER = """\
---
title: Deploy Guide
tags: [ops, deploy]
space: platform
acl: [sre, platform-leads]
---
Intro paragraph with a [link to docs](https://example.com/docs) and **bold** words.

# Deploy Guide Heading

## Prerequisites

You need *cluster access* and the `kubectl_config` file.

```bash
# not a heading, just a shell comment
kubectl apply -f deploy.yaml
```

## Rollout

- Run the pipeline
- Watch the canary
"""


def _convert_md(text: str, uri: str = "file:///wiki/ops/deploy-guide.md") -> Document:
    result = convert(SourceItem(uri=uri, data=text.encode()), "default")
    assert isinstance(result, Document), result
    return result


def test_front_matter_sets_title_tags_space_and_acl() -> None:
    doc = _convert_md(WITH_FRONT_MATTER)
    assert doc.title == "Deploy Guide"
    assert doc.tags == ("ops", "deploy")
    assert doc.acl_groups == ("sre", "platform-leads")
    assert doc.space == "platform"
    assert doc.id == document_id("platform", "file:///wiki/ops/deploy-guide.md")
    assert doc.metadata["format"] == "markdown"


def test_front_matter_is_stripped_and_syntax_removed_from_text() -> None:
    doc = _convert_md(WITH_FRONT_MATTER)
    assert "acl:" not in doc.text and "---" not in doc.text
    assert "link to docs" in doc.text
    assert "https://example.com/docs" not in doc.text
    assert "**" not in doc.text and "#" not in doc.text.split("```")[0].replace("# not", "")
    assert "You need cluster access and the kubectl_config file." in doc.text
    assert "- Run the pipeline" in doc.text


def test_headings_become_sections_and_code_comments_do_not() -> None:
    doc = _convert_md(WITH_FRONT_MATTER)
    titles = [section.title for section in doc.sections]
    # The untitled intro, then headings with a body; "Deploy Guide Heading" has no body.
    assert titles == ["", "Prerequisites", "Rollout"]
    assert [section.position for section in doc.sections] == [0, 1, 2]
    prerequisites = doc.sections[1]
    assert "kubectl apply -f deploy.yaml" in prerequisites.text
    assert "# not a heading, just a shell comment" in prerequisites.text
    assert "Watch the canary" in doc.sections[2].text
    assert "Watch the canary" not in prerequisites.text


def test_without_front_matter_title_comes_from_first_h1() -> None:
    doc = _convert_md("Some preface.\n\n## Minor\n\ntext\n\n# Main Title\n\nbody text\n")
    assert doc.title == "Main Title"
    assert doc.tags == () and doc.acl_groups == ()
    assert doc.space == "default"
    assert doc.id == document_id("default", "file:///wiki/ops/deploy-guide.md")


def test_without_any_heading_title_is_file_stem_and_no_sections() -> None:
    doc = _convert_md("just a note without headings\n", uri="file:///wiki/my%20notes.md")
    assert doc.title == "my notes"
    assert doc.sections == ()
    assert doc.text == "just a note without headings"


def test_comma_separated_tags_and_acl_groups_key() -> None:
    doc = _convert_md("---\ntags: a, b ,a\nacl_groups: eng\n---\nbody\n")
    assert doc.tags == ("a", "b")
    assert doc.acl_groups == ("eng",)


def test_invalid_front_matter_is_a_failure_not_a_public_document() -> None:
    item = SourceItem(uri="x.md", data=b"---\nacl: [unclosed\n---\nsecret body\n")
    result = convert(item, "default")
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.CORRUPT
    assert "front matter" in result.detail


def test_acl_of_wrong_type_is_rejected() -> None:
    result = convert(SourceItem(uri="x.md", data=b"---\nacl: {a: 1}\n---\nbody\n"), "s")
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.CORRUPT


def test_front_matter_only_is_empty() -> None:
    result = convert(SourceItem(uri="x.md", data=b"---\ntitle: Nothing\n---\n\n"), "s")
    assert isinstance(result, ConversionFailure)
    assert result.reason is FailureReason.EMPTY


def test_chinese_markdown_is_cjk() -> None:
    doc = _convert_md("# 部署指南\n\n本文介绍如何将支付服务安全地部署到生产环境。\n")
    assert doc.language == "cjk"
    assert doc.title == "部署指南"


def test_english_markdown_is_not_cjk() -> None:
    assert _convert_md("# Guide\n\nPlain English text here.\n").language == "und"


def test_content_hash_is_stable_across_whitespace_reflow() -> None:
    one = _convert_md("# T\n\nThe quick brown fox jumps over the lazy dog.\n")
    two = _convert_md("# T\n\nThe quick brown fox\njumps over   the lazy\n\ndog.\n")
    changed = _convert_md("# T\n\nThe quick brown cat jumps over the lazy dog.\n")
    assert one.content_hash == two.content_hash
    assert one.content_hash != changed.content_hash


def test_plain_inline_strips_markup_but_keeps_code_and_escapes() -> None:
    assert plain_inline("see ![diagram](a.png) and [docs][ref]") == "see diagram and docs"
    assert plain_inline("a `**kept**` b __strong__ _em_ ~~old~~") == "a **kept** b strong em old"
    assert plain_inline(r"literal \*stars\* and snake_case_name") == (
        "literal *stars* and snake_case_name"
    )


def test_parse_markdown_tilde_fence_and_closing_hashes() -> None:
    body = parse_markdown("## Title ##\n~~~\n## inside\n~~~\nafter\n")
    assert [(s.title, s.text) for s in body.sections] == [("", ""), ("Title", "## inside\nafter")]
    assert body.first_h1 is None

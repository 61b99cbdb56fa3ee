"""Generate the PDF documents of the sample wiki (samples/wiki/**/*.pdf).

pypdf has no text-drawing API, so each page is a blank page with a hand-written
content stream that draws Helvetica text line by line. All text is defined
below; everything in it is fictional. Run from the repository root:

    .venv/bin/python samples/make_pdfs.py

Only ASCII text is allowed: the standard Type1 Helvetica font has no CJK glyphs.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    ByteStringObject,
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
)

WIKI = Path(__file__).resolve().parent / "wiki"

PAGE_WIDTH = 612
PAGE_HEIGHT = 792
LEFT = 60
TOP = 730
WRAP = 90
FONT_SIZE = 11
HEADING_SIZE = 13
TITLE_SIZE = 16
LEADING = 15
MAX_LINES = 44

# Each document's text is a small markup: pages are separated by a "=== page ===" line,
# blocks by blank lines. "## " starts a heading, "- " a bullet (continuation lines are
# indented), anything else is a paragraph. Line breaks inside a block are re-wrapped.
PAGE_BREAK = "=== page ==="

DOCUMENTS: list[dict[str, str]] = [
    {
        "path": "policies/disaster-recovery-plan.pdf",
        "title": "Disaster Recovery Plan",
        "subject": "How Northwind Labs recovers from the loss of a region",
        "text": """
Northwind Labs - Engineering Policy ENG-POL-04 - Version 3.1 - Approved October 2024

## 1. Purpose and scope

This plan describes how Northwind Pay is recovered when a whole cloud region becomes
unavailable for an extended period, or when production data in a region is destroyed.
Failures of a single server or availability zone are handled by automation and by the
regular runbooks, and are out of scope here.

## 2. Objectives

- Recovery point objective (RPO): at most 5 minutes of committed ledger data may be
  lost.
- Recovery time objective (RTO): core payment flows restored within 4 hours of the
  decision to invoke this plan.
- Secondary features such as exports, analytics and marketing emails may take up to 24
  hours.

## 3. Invoking the plan

Only the incident commander of a SEV1 incident, together with the VP of Engineering or
the Head of SRE, may invoke the disaster recovery plan. The decision is recorded in the
incident channel with a timestamp. Invoke the plan when the affected region has been
down for 60 minutes and the cloud provider gives no credible recovery estimate.

=== page ===

## 4. Recovery region pairs

- EU (Frankfurt) recovers into EU-West (Dublin).
- US (Virginia) recovers into US-West (Oregon).
- APAC (Singapore) recovers into APAC-North (Tokyo); the Shanghai team leads this
  recovery.

## 5. Recovery steps

- Freeze all deploys in every region and announce the invocation on the status page.
- Provision the standby Kubernetes cluster in the recovery region from Terraform. The
  cluster definitions are kept ready and are tested every quarter.
- Restore each Postgres cluster from the cross-region backup repository with
  point-in-time recovery to the latest archived WAL segment.
- Restore Kafka topics that carry money movements from the mirrored cluster; other
  topics start empty.
- Redis is not restored. Caches warm up on their own and users sign in again.
- Switch DNS for the API and dashboard to the recovery region with a 60 second TTL.
- Run the payment smoke tests and reconcile ledger totals against the last settlement
  report before opening traffic.

=== page ===

## 6. Testing

The plan is exercised twice a year in a game day. One region is chosen, its traffic is
moved to the recovery region using this plan, and the measured RPO and RTO are compared
with the objectives. The last exercise, in May 2024, achieved an RTO of 3 hours 10
minutes and an RPO of 40 seconds for the EU region.

## 7. Roles

- Incident commander: runs the recovery and owns the timeline.
- DBA on call: owns database restores and the ledger reconciliation.
- Platform on call: owns cluster provisioning, DNS and the gateway.
- Communications lead: status page and enterprise customer notifications.

## 8. Review

This plan is reviewed every year by SRE and after every invocation or game day. Changes
are approved by the Head of SRE.
""",
    },
    {
        "path": "policies/data-retention-policy.pdf",
        "title": "Data Retention Policy",
        "subject": "How long Northwind Labs keeps each kind of data",
        "text": """
Northwind Labs - Policy LEG-POL-02 - Version 2.0 - Owner: Legal and Security

## 1. Principles

We keep personal data only as long as we need it for the purpose it was collected for,
or as long as the law requires. When the period ends, data is deleted or irreversibly
anonymised. Backups follow the same rules with a delay equal to the backup retention.

## 2. Retention periods

- Ledger entries, invoices and payout records: 10 years after the end of the financial
  year, as required by accounting law.
- Merchant account profile: for the life of the account plus 2 years.
- Application logs: 30 days in hot storage, then deleted. Logs must not contain card
  numbers or passwords.
- Audit logs of staff access: 7 years.
- Support tickets: 3 years after closing.
- Database backups: 35 days of point-in-time recovery, monthly snapshots kept for 12
  months.
- Webhook delivery logs shown to merchants: 90 days.

=== page ===

## 3. Deletion requests

When a merchant or end customer asks for deletion, Customer Success opens a privacy
ticket. Engineering runs the deletion job for the subject within 30 days. Records we
must keep by law, such as invoices, are kept but access to them is restricted to the
finance and legal groups.

## 4. Responsibilities

Each service owner documents which personal data the service stores and implements
automatic expiry for it. New data stores must have a retention period agreed with Legal
before launch. The Security team audits retention settings once a year.

## 5. Exceptions

A legal hold suspends deletion for the data it names. Legal holds are placed and
released only by the General Counsel and are tracked in the legal hold register.
""",
    },
    {
        "path": "policies/access-control-policy.pdf",
        "title": "Access Control Policy",
        "subject": "Rules for granting and reviewing access to Northwind systems",
        "text": """
Northwind Labs - Policy SEC-POL-01 - Version 4.2 - Owner: Security team

## 1. Least privilege

Every person and every service receives the minimum access needed for their role. Access
is granted to groups, never to individuals directly, and every group has a named owner
who approves membership.

## 2. Authentication

- All staff authenticate through the company identity provider with single sign-on.
- A phishing-resistant second factor (hardware security key) is required for any
  production system. SMS and voice codes are not allowed.
- Shared accounts are forbidden. Service accounts are owned by a team and their
  credentials are stored in the secrets manager.

## 3. Production access

Standing production write access is limited to engineers on an on-call rotation and
expires after 90 days unless renewed. Database superuser access is only available
through the break-glass procedure, which needs two approvers and expires after four
hours.

=== page ===

## 4. Reviews

Managers review the access of their reports every quarter. Group owners review group
membership every six months. Access not confirmed in a review is removed automatically
two weeks after the review closes.

## 5. Joiners, movers and leavers

New staff receive the base bundle for their role on their first day. When someone
changes team, access from the previous team is removed after a 14 day overlap. When
someone leaves, their identity provider account is disabled on their last day and all
access ends within 15 minutes.

## 6. Logging

Every grant, use of break-glass access and change of a production secret is logged to
the audit log, which is retained for seven years and cannot be modified by engineers.

## 7. Violations

Suspected violations of this policy are reported to the Security team and handled as
security incidents.
""",
    },
    {
        "path": "policies/travel-and-expense-policy.pdf",
        "title": "Travel and Expense Policy",
        "subject": "What Northwind Labs reimburses and how to claim it",
        "text": """
Northwind Labs - Finance Policy FIN-POL-03 - Applies to all offices

## 1. Booking travel

Book flights and hotels through the company travel tool whenever possible, at least 14
days in advance. Economy class is the default for flights under 8 hours; premium economy
is allowed for longer flights. Hotel rates should stay within the city cap shown in the
travel tool.

## 2. Daily allowances

Meals while travelling are covered by a daily allowance: 45 EUR per day in Portugal, 60
EUR elsewhere in Europe, and the local rate published by Finance for other countries.
The Shanghai office applies the local allowance set by its own finance team.

## 3. Claiming expenses

- Submit claims in the expense system within 60 days of the expense.
- Attach an itemised receipt or a valid tax invoice for every item above 25 EUR.
- Claims are approved by your manager; amounts above 1,500 EUR also need the
  department head.
- Approved claims are paid with the next payroll run.

## 4. Not reimbursed

Fines, personal entertainment, upgrades without approval, and travel insurance (the
company policy already covers business trips) are not reimbursed.
""",
    },
    {
        "path": "reports/postmortem-2024-08-14-ledger-outage.pdf",
        "title": "Postmortem: ledger-svc write outage on 2024-08-14",
        "subject": "SEV1 incident INC-2187",
        "text": """
Incident INC-2187 - Severity SEV1 - Duration 47 minutes - Status: action items open

## Summary

On 14 August 2024 between 02:13 and 03:00 UTC, ledger-svc in the EU region rejected all
payment writes. About 9,400 card payments failed and merchants saw errors in the
dashboard. No ledger data was lost and no journal became unbalanced.

## Timeline (UTC)

- 02:11 The disk of the pg-ledger leader filled up with WAL after the archive command
  started failing on an expired storage credential.
- 02:13 Postgres stopped accepting writes. Alert LedgerWritesFailing paged the
  Payments Core on-call engineer.
- 02:24 The on-call engineer escalated to the SRE second line.
- 02:31 Patroni did not fail over, because the leader was still reachable and healthy
  from its point of view.
- 02:42 The SRE freed space by moving old WAL files after confirming they were present
  in the backup repository, and renewed the credential.
- 03:00 Writes recovered. The incident was closed at 03:20 after verification.

=== page ===

## Root cause

The object storage credential used by the WAL archive command had a one-year expiry that
nobody tracked. When it expired, archiving failed silently and WAL accumulated on the
leader's disk for about 30 hours until the disk was full.

## What went well

- The ledger refused writes instead of corrupting data.
- Escalation happened within the expected 15 minutes.

## What went wrong

- There was no alert on failed WAL archiving, only on disk usage, which fired too
  late.
- The failover runbook did not cover a leader that is up but cannot write.

## Action items

- Alert when pg_stat_archiver reports failures for more than 10 minutes. (Owner: DBA)
- Move the archive credential to dynamic secrets in Vault. (Owner: Security)
- Add a disk-full section to the Postgres failover runbook. (Owner: Payments Core)
- Track all expiring credentials in one calendar with reminders. (Owner: SRE)
""",
    },
    {
        "path": "reports/gateway-load-test-2024-10.pdf",
        "title": "edge-gw Load Test Report, October 2024",
        "subject": "Capacity test of the API gateway before the holiday season",
        "text": """
Platform team - Test date 2024-10-17 - Environment: perf cluster, EU region copy

## Goal

Confirm that edge-gw and the rate limiter can handle three times the peak traffic
observed during the 2023 holiday season, which was 4,100 requests per second.

## Setup

We replayed anonymised production traffic with the k6 load generator from three
locations, ramping from 2,000 to 14,000 requests per second over 40 minutes. The gateway
ran 12 pods with 2 CPU cores each, backed by the perf copy of the Redis cache tier.

## Results

- Sustained 12,500 requests per second with p99 latency of 38 ms added by the gateway.
- Above 13,000 requests per second, Redis CPU on the rate limit shard reached 85
  percent and p99 rose to 140 ms.
- Token bucket accuracy stayed within 2 percent of the configured limits.
- No errors other than the expected 429 responses for keys over their limit.

## Recommendations

- Raise the gateway to 16 pods for the holiday period.
- Move rate limit buckets to their own Redis shard before traffic passes 10,000
  requests per second in production.
- Repeat the test after the shard split.
""",
    },
]


def parse_blocks(raw_page: str) -> list[str]:
    """One page of markup to blocks: a heading, a bullet or a paragraph per block."""
    blocks: list[str] = []
    current: list[str] = []
    for line in raw_page.strip().splitlines():
        starts_block = not line.strip() or line.startswith(("## ", "- "))
        if starts_block and current:
            blocks.append(" ".join(current))
            current = []
        if line.strip():
            current.append(line.strip())
        if line.startswith("## "):
            blocks.append(current.pop())
    if current:
        blocks.append(" ".join(current))
    return blocks


def parse_pages(text: str) -> list[list[str]]:
    """Split a document's markup into pages of blocks."""
    return [parse_blocks(raw_page) for raw_page in text.strip().split(PAGE_BREAK)]


def escape_pdf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def layout(blocks: list[str]) -> list[tuple[str, int, str]]:
    """Turn blocks into (font, size, text) lines, wrapped at WRAP characters."""
    lines: list[tuple[str, int, str]] = []
    for block in blocks:
        if block.startswith("## "):
            lines.append(("/F2", HEADING_SIZE, block[3:]))
        elif block.startswith("- "):
            wrapped = textwrap.wrap(block[2:], WRAP - 4, break_on_hyphens=False)
            lines.append(("/F1", FONT_SIZE, "- " + wrapped[0]))
            lines.extend(("/F1", FONT_SIZE, "  " + rest) for rest in wrapped[1:])
        else:
            wrapped = textwrap.wrap(block, WRAP, break_on_hyphens=False)
            lines.extend(("/F1", FONT_SIZE, part) for part in wrapped)
    return lines


def content_stream(title: str | None, blocks: list[str], page_no: int, page_count: int) -> bytes:
    lines = layout(blocks)
    if title is not None:
        lines = [("/F2", TITLE_SIZE, title), *lines]
    lines.append(("/F1", 9, f"Northwind Labs - internal - page {page_no} of {page_count}"))
    if len(lines) > MAX_LINES:
        raise ValueError(f"page {page_no} of {title!r} has {len(lines)} lines (max {MAX_LINES})")
    ops = ["BT", f"{LEFT} {TOP} Td"]
    for i, (font, size, text) in enumerate(lines):
        if i > 0:
            gap = LEADING + (6 if font == "/F2" else 0)
            ops.append(f"0 -{gap} Td")
        ops.append(f"{font} {size} Tf")
        ops.append(f"({escape_pdf_text(text)}) Tj")
    ops.append("ET")
    return ("\n".join(ops) + "\n").encode("ascii")


def font_resources() -> DictionaryObject:
    def font(base: str) -> DictionaryObject:
        return DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject(base),
                NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
            }
        )

    return DictionaryObject(
        {
            NameObject("/Font"): DictionaryObject(
                {
                    NameObject("/F1"): font("/Helvetica"),
                    NameObject("/F2"): font("/Helvetica-Bold"),
                }
            )
        }
    )


def build(doc: dict) -> Path:
    out = WIKI / doc["path"]
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = PdfWriter()
    pages = parse_pages(doc["text"])
    for index, blocks in enumerate(pages):
        for block in blocks:
            block.encode("ascii")  # Helvetica: ASCII only
        page = writer.add_blank_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
        page[NameObject("/Resources")] = font_resources()
        stream = DecodedStreamObject()
        title = doc["title"] if index == 0 else None
        stream.set_data(content_stream(title, blocks, index + 1, len(pages)))
        page[NameObject("/Contents")] = writer._add_object(stream)
    writer.add_metadata(
        {
            "/Title": doc["title"],
            "/Author": "Northwind Labs",
            "/Subject": doc["subject"],
            "/Creator": "samples/make_pdfs.py",
            "/CreationDate": "D:20241101120000Z",
        }
    )
    # Fixed file identifier so regenerating gives byte-identical files.
    fixed_id = ByteStringObject(doc["path"].encode("ascii").ljust(16, b"_")[:16])
    writer._ID = ArrayObject([fixed_id, fixed_id])
    with out.open("wb") as fh:
        writer.write(fh)
    return out


def verify(path: Path, doc: dict) -> None:
    reader = PdfReader(path)
    assert reader.metadata is not None and reader.metadata.title == doc["title"], path
    pages = parse_pages(doc["text"])
    assert len(reader.pages) == len(pages), path
    for i, page in enumerate(reader.pages):
        text = page.extract_text()
        first_heading = next(b[3:] for b in pages[i] if b.startswith("## "))
        assert first_heading in text, (path, i, first_heading)
    assert path.stat().st_size < 20_000, path


def main() -> int:
    for doc in DOCUMENTS:
        path = build(doc)
        verify(path, doc)
        pages = len(PdfReader(path).pages)
        print(f"{path.relative_to(WIKI.parent)}: {pages} page(s), {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

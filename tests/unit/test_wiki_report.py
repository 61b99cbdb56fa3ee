"""The wiki benchmark report: numbers in the right cells, the latency bar, the PNG charts."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from benchmarks.wiki.report import main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TYPE_COUNTS = {"identifier": 175, "lexical": 170, "paraphrase": 175}
KEYS = ("ndcg@10", "recall@5", "recall@10", "recall@20", "recall@100", "mrr@10")
# wiki-200 lacks rerank, pin=1.5, N=100 and the section runs; wiki-all lacks N=100 only.
RUNS = {
    "wiki-200": ["bm25", "vector", "rrf", "hybrid", "hybrid pin=1.1", "hybrid N=50"],
    "wiki-all": [
        *("bm25", "vector", "rrf", "hybrid", "rerank", "hybrid pin=1.1", "hybrid pin=1.5"),
        *("hybrid N=50", "vector sections", "rrf sections", "hybrid sections"),
    ],
}
PAGES = {"wiki-200": 200, "wiki-all": 2000}
# Cells the tests check by hand (size, run, type, key): chosen to test rounding.
OVERRIDES = {
    ("wiki-all", "hybrid", "paraphrase", "recall@5"): 0.7196,
    ("wiki-all", "hybrid", "paraphrase", "pin_rate"): 0.6667,
    ("wiki-all", "hybrid", "paraphrase", "pin_top1_right"): 0.4951,
    ("wiki-all", "hybrid", "identifier", "pin_rate"): 0.8514,
    ("wiki-all", "hybrid", "identifier", "pin_top1_right"): 0.9349,
}


def value(size: str, run: str, kind: str, key: str) -> float:
    """A distinct, reproducible metric per cell (4 decimals, like the real files)."""
    if (size, run, kind, key) in OVERRIDES:
        return OVERRIDES[(size, run, kind, key)]
    if key == "pin_rate" and run in ("bm25", "vector", "rrf", "vector sections", "rrf sections"):
        return 0.0
    return round(0.05 + (zlib.crc32(f"{size}|{run}|{kind}|{key}".encode()) % 9000) / 10000, 4)


def metrics(size: str, run: str, kind: str) -> dict[str, float]:
    keys = (*KEYS, "pin_rate", "pin_top1_right")
    return {key: value(size, run, kind, key) for key in keys}


def run_entry(size: str, run: str) -> dict[str, Any]:
    return {
        "config": {"mode": run.split()[0], "candidates": 20},
        **metrics(size, run, "all"),
        "latency_p50_ms": 30.0,
        "latency_p95_ms": 50.0,
        "queries": 520,
        "mode": run.split()[0],
        "dataset": size,
        "index_seconds": 1.0,
        "embedded": 10,
        "by_type": {
            kind: {**metrics(size, run, kind), "queries": float(count)}
            for kind, count in TYPE_COUNTS.items()
        },
    }


def latency_row(size: str, mode: str, cache: str, p95: float, p50: float = 5.0) -> dict[str, Any]:
    pages = {"wiki-200": 200, "wiki-500": 500, "wiki-1000": 1000, "wiki-all": 2000}[size]
    return {
        **{"size": size, "pages": pages, "mode": mode, "cache": cache, "queries": 520},
        **{"p50_ms": p50, "p95_ms": p95, "mean_ms": p50},
    }


LATENCY = [
    # wiki-200: 29.9 <= 1.5 × max(10, 20) = 30: holds.
    latency_row("wiki-200", "bm25", "cold", 10.0),
    latency_row("wiki-200", "embed", "cold", 20.0),
    latency_row("wiki-200", "hybrid", "cold", 29.9, p50=12.34),
    latency_row("wiki-200", "hybrid", "warm", 15.0),
    # wiki-500: no cold bm25 row; the warm one (25) gives 37.5 >= 37: holds.
    latency_row("wiki-500", "bm25", "warm", 25.0),
    latency_row("wiki-500", "embed", "cold", 10.0),
    latency_row("wiki-500", "hybrid", "cold", 37.0),
    # wiki-1000: no embed row at all: not checked.
    latency_row("wiki-1000", "bm25", "cold", 10.0),
    latency_row("wiki-1000", "hybrid", "cold", 12.0),
    # wiki-all: 30.1 > 1.5 × max(12, 20) = 30: does not hold. The warm embed (100) must not count.
    latency_row("wiki-all", "bm25", "cold", 12.0),
    latency_row("wiki-all", "bm25", "warm", 12.0),
    latency_row("wiki-all", "embed", "cold", 20.0),
    latency_row("wiki-all", "embed", "warm", 100.0),
    latency_row("wiki-all", "vector", "cold", 25.0),
    latency_row("wiki-all", "hybrid", "cold", 30.1),
    latency_row("wiki-all", "hybrid", "warm", 14.0),
]


def write_results(folder: Path) -> None:
    folder.mkdir(parents=True)
    for size, runs in RUNS.items():
        content = {
            "size": size,
            "pages": PAGES[size],
            "queries": 520,
            "settings": {"candidates": 20, "pin_ratio": 1.05, "rrf_k": 60},
            "runs": {run: run_entry(size, run) for run in runs},
        }
        (folder / f"quality-{size}.json").write_text(json.dumps(content), encoding="utf-8")
    (folder / "latency.json").write_text(json.dumps({"runs": LATENCY}), encoding="utf-8")


def parse_sections(markdown: str) -> dict[str, str]:
    """Section title -> section body."""
    sections = {}
    for chunk in markdown.split("### ")[1:]:
        title, _, body = chunk.partition("\n")
        sections[title.strip()] = body
    return sections


def parse_table(body: str) -> list[dict[str, str]]:
    """The Markdown table of a section body as rows keyed by header."""
    lines = [line for line in body.splitlines() if line.startswith("|")]
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    header, rows = cells[0], cells[2:]
    assert all(len(row) == len(header) for row in rows)
    return [dict(zip(header, row, strict=True)) for row in rows]


def find_row(rows: list[dict[str, str]], **match: str) -> dict[str, str]:
    found = [row for row in rows if all(row[key] == want for key, want in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


def has_row(rows: list[dict[str, str]], **match: str) -> bool:
    return any(all(row[key] == want for key, want in match.items()) for row in rows)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path]:
    """The report of the synthetic results, built once for the module's tests."""
    tmp_path = tmp_path_factory.mktemp("report")
    results, charts, out = tmp_path / "results", tmp_path / "docs/img/wiki", tmp_path / "docs/b.md"
    write_results(results)
    assert main(["--results", str(results), "--charts", str(charts), "--out", str(out)]) == 0
    return parse_sections(out.read_text(encoding="utf-8")), charts


def test_quality_table_has_every_cell_of_every_size(report: tuple[dict[str, str], Path]) -> None:
    sections, _ = report
    names = {"Recall@5": "recall@5", "Recall@20": "recall@20", "MRR@10": "mrr@10"}
    names["nDCG@10"] = "ndcg@10"
    for size, label in (("wiki-200", "200 pages"), ("wiki-all", "2,000 pages")):
        rows = parse_table(sections[f"Quality per question type: {size} ({label})"])
        modes = [
            mode for mode in ("bm25", "vector", "rrf", "hybrid", "rerank") if mode in RUNS[size]
        ]
        assert list(rows[0]) == ["type", "metric", *modes]
        assert len(rows) == 4 * 4
        for kind, count in (*TYPE_COUNTS.items(), ("all", 520)):
            for name, key in names.items():
                row = find_row(rows, type=f"{kind} ({count})", metric=name)
                for mode in modes:
                    assert row[mode] == f"{value(size, mode, kind, key):.3f}", (size, kind, mode)


def test_hybrid_paraphrase_recall_is_rounded_in_its_cell(
    report: tuple[dict[str, str], Path],
) -> None:
    rows = parse_table(report[0]["Quality per question type: wiki-all (2,000 pages)"])
    assert find_row(rows, type="paraphrase (175)", metric="Recall@5")["hybrid"] == "0.720"
    assert find_row(rows, type="paraphrase (175)", metric="nDCG@10")["hybrid"] != "0.720"


def test_growth_has_one_column_per_size(report: tuple[dict[str, str], Path]) -> None:
    rows = parse_table(report[0]["Growth: Recall@5 as the wiki grows"])
    row = find_row(rows, type="paraphrase R@5", mode="hybrid")
    assert row["2,000 pages"] == "0.720"
    assert row["200 pages"] == f"{value('wiki-200', 'hybrid', 'paraphrase', 'recall@5'):.3f}"
    rerank = find_row(rows, type="identifier R@5", mode="rerank")
    assert rerank["200 pages"] == "—"
    assert rerank["2,000 pages"] == f"{value('wiki-all', 'rerank', 'identifier', 'recall@5'):.3f}"


def test_pin_table_shows_whole_percentages(report: tuple[dict[str, str], Path]) -> None:
    rows = parse_table(report[0]["The BM25 pin per size"])
    row = find_row(rows, size="wiki-all (2,000 pages)", type="paraphrase (175)")
    assert (row["pin fired"], row["pinned top 1 right"]) == ("67%", "50%")
    assert has_row(rows, size="wiki-200 (200 pages)", type="all (520)")


def test_pin_sweep_rows_per_size_and_ratio(report: tuple[dict[str, str], Path]) -> None:
    rows = parse_table(report[0]["Pin ratio sweep per size"])
    big, small = "wiki-all (2,000 pages)", "wiki-200 (200 pages)"
    labels = [row["pin ratio"] for row in rows if row["size"] == big]
    assert labels == ["bm25 alone", "no pin (rrf)", "1.05 (default)", "1.1", "1.5"]
    assert not has_row(rows, size=small, **{"pin ratio": "1.5"})
    default = find_row(rows, size=big, **{"pin ratio": "1.05 (default)"})
    assert default["paraphrase R@5"] == "0.720"
    assert default["pin fired (para / ident)"] == "67% / 85%"
    assert default["pinned top 1 right (para / ident)"] == "50% / 93%"
    steep = find_row(rows, size=big, **{"pin ratio": "1.5"})
    expected = f"{value('wiki-all', 'hybrid pin=1.5', 'identifier', 'recall@5'):.3f}"
    assert steep["identifier R@5"] == expected
    assert steep["all nDCG@10"] == f"{value('wiki-all', 'hybrid pin=1.5', 'all', 'ndcg@10'):.3f}"
    rrf = find_row(rows, size=small, **{"pin ratio": "no pin (rrf)"})
    assert rrf["pin fired (para / ident)"] == "0% / 0%"
    assert rrf["pinned top 1 right (para / ident)"] == "— / —"
    bm25 = find_row(rows, size=small, **{"pin ratio": "bm25 alone"})
    assert bm25["lexical R@5"] == f"{value('wiki-200', 'bm25', 'lexical', 'recall@5'):.3f}"
    assert bm25["pin fired (para / ident)"] == "—"


def test_depth_rows_skip_missing_runs(report: tuple[dict[str, str], Path]) -> None:
    rows = parse_table(report[0]["Candidate depth per size"])
    assert "pin fired (para / ident)" not in rows[0]
    labels = [(row["size"], row["candidates"]) for row in rows]
    assert ("wiki-all (2,000 pages)", "100") not in labels
    assert ("wiki-200 (200 pages)", "20 (default)") in labels
    row = find_row(rows, size="wiki-all (2,000 pages)", candidates="50")
    assert (
        row["paraphrase R@5"] == f"{value('wiki-all', 'hybrid N=50', 'paraphrase', 'recall@5'):.3f}"
    )


def test_sections_table_only_for_sizes_with_section_runs(
    report: tuple[dict[str, str], Path],
) -> None:
    rows = parse_table(report[0]["Page- vs section-level embeddings"])
    assert {row["size"] for row in rows} == {"wiki-all (2,000 pages)"}
    assert len(rows) == 1 + 3 + 3
    row = find_row(rows, embeddings="section", mode="hybrid")
    assert row["paraphrase R@5"] == (
        f"{value('wiki-all', 'hybrid sections', 'paraphrase', 'recall@5'):.3f}"
    )
    assert find_row(rows, embeddings="page", mode="hybrid")["paraphrase R@5"] == "0.720"
    assert has_row(rows, embeddings="—", mode="bm25")


def test_latency_table_and_bar_check(report: tuple[dict[str, str], Path]) -> None:
    body = report[0]["Latency"]
    rows = parse_table(body)
    row = find_row(rows, size="wiki-200 (200 pages)", mode="hybrid", cache="cold")
    assert (row["p50 ms"], row["p95 ms"]) == ("12.3", "29.9")
    bars = {
        line.split(":**")[0].removeprefix("- **"): line
        for line in body.splitlines()
        if line.startswith("- **")
    }
    assert bars["wiki-200 (200 pages)"].endswith("**holds**.")
    assert "= 30.0 ms" in bars["wiki-200 (200 pages)"]
    assert bars["wiki-500 (500 pages)"].endswith("**holds**.")
    assert "bm25 25.0 (warm)" in bars["wiki-500 (500 pages)"]
    assert "does not hold" in bars["wiki-all (2,000 pages)"]
    assert "embed 20.0" in bars["wiki-all (2,000 pages)"]
    unchecked = bars["wiki-1000 (1,000 pages)"]
    assert "not checked" in unchecked and "embed" in unchecked and "hold" not in unchecked


def test_charts_are_pngs_linked_from_the_markdown(report: tuple[dict[str, str], Path]) -> None:
    sections, charts = report
    names = ["quality-wiki-200", "quality-wiki-all", "growth", "pin", "pin-ratio"]
    names += ["candidates", "sections", "latency"]
    assert sorted(path.stem for path in charts.iterdir()) == sorted(names)
    for name in names:
        assert (charts / f"{name}.png").read_bytes()[:8] == PNG_MAGIC
    assert len(sections) == len(names)
    for title, body in sections.items():
        links = [line for line in body.splitlines() if line.startswith("![")]
        assert len(links) == 1, title
        assert links[0].startswith(f"![{title}](img/wiki/") and links[0].endswith(".png)")
    assert "(img/wiki/latency.png)" in sections["Latency"]


def test_prints_with_links_relative_to_docs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_results(tmp_path / "results")
    (tmp_path / "results/latency.json").unlink()
    (tmp_path / "results/quality-wiki-200.json").write_text("{not json", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["--results", "results", "--charts", "docs/img/wiki"]) == 0
    printed = capsys.readouterr().out
    sections = parse_sections(printed)
    assert "Latency" not in sections
    assert "Quality per question type: wiki-200 (200 pages)" not in sections
    assert "![Pin ratio sweep per size](img/wiki/pin-ratio.png)" in printed
    rows = parse_table(sections["Growth: Recall@5 as the wiki grows"])
    assert list(rows[0]) == ["type", "mode", "2,000 pages"]
    assert (tmp_path / "docs/img/wiki/pin-ratio.png").read_bytes()[:8] == PNG_MAGIC


def test_no_results_writes_no_charts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    charts = tmp_path / "charts"
    assert main(["--results", str(tmp_path / "missing"), "--charts", str(charts)]) == 0
    assert "No wiki benchmark results" in capsys.readouterr().out
    assert not charts.exists()


def test_into_replaces_only_the_marked_block(tmp_path: Path) -> None:
    from benchmarks.wiki.report import MARK_END, MARK_START, splice

    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# Intro\n\n{MARK_START}\nold tables\n{MARK_END}\n\n## After\n")
    splice(doc, "### New tables\n")
    text = doc.read_text()
    assert "old tables" not in text
    assert text.startswith("# Intro\n") and text.endswith("## After\n")
    assert f"{MARK_START}\n\n### New tables\n\n{MARK_END}" in text

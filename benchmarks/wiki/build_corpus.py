"""Build the wiki benchmark corpus from documentation that Debian packages install.

    .venv/bin/python benchmarks/wiki/build_corpus.py --out .wikibench/corpus

Sources (installed with apt-get when missing, after saying so):

- `py`: the Python 3.11 manual (python3.11-doc), one page per HTML file;
- `pg`: the PostgreSQL 15 manual (postgresql-doc-15), one page per HTML file;
- `debref`: the Debian Reference (debian-reference-en), one page per section of its chapters;
- `man`: Linux man pages (manpages sections 4, 5, 7 and manpages-dev section 2), rendered to
  text with `man` and written as .txt.

Every page goes through wikifuse's own converter (`pipelines.conversion.convert`). Pages with
fewer than MIN_WORDS words, table-of-contents pages and duplicates are dropped; a seeded draw then
keeps at most QUOTAS[source] pages per source. The question pages and the nested wiki sizes come
from benchmarks/wiki/sampling.py. Output (see benchmarks/wiki/README.md):

    OUT/wiki-200/corpus.jsonl, OUT/wiki-500/..., OUT/wiki-1000/..., OUT/wiki-all/...
    OUT/sizes.json       the seeds, the question pages and the page ids of every size
    OUT/stats.json       counts per source before/after each filter, failures, length percentiles
    benchmarks/wiki/manifest.json   package versions, seeds, counts, every page id + sha256

`--check` rebuilds and compares with the manifest instead of rewriting it.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata as importlib_metadata
from pathlib import Path

import lxml.html

if __package__ in (None, ""):  # run as a script: make `benchmarks.wiki` and `pipelines` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.wiki.sampling import nested_sizes, pick_question_pages
from pipelines.conversion import convert
from pipelines.documents import ConversionFailure, normalize_text
from pipelines.sources.item import SourceItem

MANIFEST = Path(__file__).resolve().parent / "manifest.json"

PY_HTML = Path("/usr/share/doc/python3.11/html")
PG_HTML = Path("/usr/share/doc/postgresql-doc-15/html")
DEBREF_HTML = Path("/usr/share/debian-reference")

# source -> the Debian packages its pages come from (the first one is the page's `package`)
SOURCE_PACKAGES: dict[str, tuple[str, ...]] = {
    "py": ("python3.11-doc",),
    "pg": ("postgresql-doc-15",),
    "debref": ("debian-reference-en",),
    "man": ("manpages", "manpages-dev"),
}
TOOL_PACKAGES = ("man-db", "groff-base")  # they render the man pages
PYTHON_PACKAGES = ("trafilatura", "lxml", "lxml-html-clean")  # they shape the converted text

QUOTAS = {"py": 460, "pg": 980, "debref": 260, "man": 300}
SIZES = (200, 500, 1000)  # plus "all"
QUESTION_PAGES = 150
MIN_WORDS = 80
SEED_CORPUS, SEED_PAGES, SEED_QUESTIONS = 20_240_601, 1, 2

PY_SKIP_DIRS = {"_static", "_sources", "_images", "_downloads"}
PY_SKIP_FILES = {
    "search.html", "py-modindex.html", "contents.html", "download.html", "whatsnew/changelog.html",
}  # fmt: skip
PG_SKIP_FILES = {"bookindex.html"}
MAN_SECTIONS = {"manpages": ("man4", "man5", "man7"), "manpages-dev": ("man2",)}


@dataclass(frozen=True)
class Candidate:
    page_id: str
    source: str
    package: str
    path: str  # the file (and, for a Debian Reference section, its #anchor)
    uri: str  # what the converter sees; its suffix picks the converter
    data: bytes


@dataclass(frozen=True)
class Page:
    page_id: str
    source: str
    package: str
    path: str
    title: str
    text: str
    words: int
    text_sha256: str


# --- packages -------------------------------------------------------------------------------


def installed_versions(packages: list[str]) -> dict[str, str | None]:
    """Version of each package that dpkg reports as installed, None for the missing ones."""
    found: dict[str, str | None] = dict.fromkeys(packages)
    result = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Package}\t${db:Status-Abbrev}\t${Version}\n", *packages],
        capture_output=True,
        text=True,
        check=False,
    )
    for line in result.stdout.splitlines():
        name, status, version = line.split("\t")
        if status.startswith("ii") and name in found:
            found[name] = version
    return found


def ensure_packages(packages: list[str], *, install: bool) -> dict[str, str]:
    if shutil.which("dpkg-query") is None:
        sys.exit("this corpus is built from Debian packages: dpkg-query not found (Debian/Ubuntu)")
    versions = installed_versions(packages)
    missing = [name for name, version in versions.items() if version is None]
    if missing:
        command = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
        if os.geteuid() != 0:
            if shutil.which("sudo") is None:
                sys.exit(f"missing Debian packages: {' '.join(missing)}; run: {' '.join(command)}")
            command.insert(0, "sudo")
        if not install:
            sys.exit(f"missing Debian packages: {' '.join(missing)}; run: {' '.join(command)}")
        print(
            f"missing Debian packages: {' '.join(missing)}; installing: {' '.join(command)}",
            flush=True,
        )
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        if subprocess.run(command, env=env, check=False).returncode != 0:
            print("apt-get install failed; trying once more after apt-get update", flush=True)
            update = (
                ["apt-get", "update"] if command[0] != "sudo" else ["sudo", "apt-get", "update"]
            )
            subprocess.run(update, env=env, check=True)
            subprocess.run(command, env=env, check=True)
        versions = installed_versions(packages)
        still = [name for name, version in versions.items() if version is None]
        if still:
            sys.exit(f"still missing after apt-get install: {' '.join(still)}")
    return {name: str(version) for name, version in versions.items()}


# --- candidates -----------------------------------------------------------------------------


def python_candidates() -> Iterator[Candidate]:
    for path in sorted(PY_HTML.rglob("*.html")):
        rel = path.relative_to(PY_HTML).as_posix()
        if PY_SKIP_DIRS.intersection(path.relative_to(PY_HTML).parts) or rel in PY_SKIP_FILES:
            continue
        if path.name.startswith("genindex"):
            continue
        yield Candidate(
            f"py:{rel}", "py", "python3.11-doc", str(path), path.as_uri(), path.read_bytes()
        )


def postgres_candidates() -> Iterator[Candidate]:
    for path in sorted(PG_HTML.glob("*.html")):
        if path.name in PG_SKIP_FILES:
            continue
        yield Candidate(
            f"pg:{path.name}",
            "pg",
            "postgresql-doc-15",
            str(path),
            path.as_uri(),
            path.read_bytes(),
        )


def _section_title(section: lxml.html.HtmlElement) -> str:
    heading = section.xpath("./div[@class='titlepage']//*[self::h2 or self::h3 or self::h4]")
    return " ".join(heading[0].text_content().split()) if heading else ""


def _fragment(title: str, body: list[lxml.html.HtmlElement]) -> bytes:
    """A stand-alone HTML page: the section's title, then its elements."""
    root = lxml.html.fromstring("<html><head><title></title></head><body></body></html>")
    root.find("head/title").text = title
    body_element = root.find("body")
    heading = lxml.html.Element("h1")
    heading.text = title
    body_element.append(heading)
    for element in body:
        body_element.append(element)
    return bytes(lxml.html.tostring(root, encoding="utf-8", doctype="<!DOCTYPE html>"))


def debian_reference_candidates() -> Iterator[Candidate]:
    """One page per x.y.z section (with its subsections), and one per chapter or x.y section
    for the text before its first subsection."""
    for path in sorted(DEBREF_HTML.glob("*.en.html")):
        if path.name.startswith("index."):
            continue
        root = lxml.html.fromstring(path.read_bytes())
        chapter = root.xpath("//div[@class='chapter' or @class='appendix' or @class='preface']")
        if not chapter:
            continue
        chapter_title = " ".join(
            (chapter[0].xpath(".//h1") or chapter[0].xpath(".//h2"))[0].text_content().split()
        )
        parts: list[tuple[str, str, lxml.html.HtmlElement, bool]] = [
            ("", chapter_title, chapter[0], False)
        ]
        for section in chapter[0].xpath(".//div[@class='section']"):
            depth = len(section.xpath("ancestor::div[@class='section']"))
            anchor = section.xpath("./div[@class='titlepage']//a[@id]/@id")
            if depth > 1 or not anchor:
                continue  # x.y.z.w sections stay inside their x.y.z page
            parts.append((anchor[0], _section_title(section), section, depth == 0))
        for anchor, title, element, own_text_only in parts:
            copy = lxml.html.fromstring(lxml.html.tostring(element))
            if own_text_only or not anchor:  # chapter / x.y intro: drop the subsections
                for child in copy.xpath("./div[@class='section']"):
                    child.drop_tree()
            for chrome in copy.xpath(
                ".//div[@class='titlepage'] | .//div[@class='toc'] | .//div[@class='navheader']"
                " | .//div[@class='navfooter'] | .//div[@class='list-of-tables']"
            ):
                if chrome is not copy:
                    chrome.drop_tree()
            suffix = f"#{anchor}" if anchor else ""
            yield Candidate(
                f"debref:{path.name}{suffix}",
                "debref",
                "debian-reference-en",
                f"{path}{suffix}",
                f"{path.as_uri()}{suffix}",
                _fragment(title, [copy]),
            )


def _man_files(package: str) -> list[Path]:
    listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=True)
    files = []
    for line in listed.stdout.splitlines():
        path = Path(line)
        if (
            path.parent.parent == Path("/usr/share/man")
            and path.parent.name in MAN_SECTIONS[package]
            and path.is_file()
            and not path.is_symlink()
        ):
            files.append(path)
    return sorted(files)


def _is_redirect(path: Path) -> bool:
    """A `.so other.2` stub that only points at another page."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        head = handle.read(300)
    lines = [line for line in head.splitlines() if line.strip() and not line.startswith(b'.\\"')]
    return bool(lines) and lines[0].startswith(b".so ")


def _render_man(path: Path) -> bytes | None:
    """The page as plain text with a first line `name(section) - what it is`, or None."""
    env = {**os.environ, "MANWIDTH": "100", "LC_ALL": "C.UTF-8", "MAN_DISABLE_SECCOMP": "1"}
    env.pop("MANPAGER", None)
    env.pop("PAGER", None)
    result = subprocess.run(
        ["man", "--no-hyphenation", "--no-justification", "-l", str(path)],
        capture_output=True,
        env=env,
        check=False,
    )
    if result.returncode != 0:
        return None
    lines = result.stdout.decode("utf-8", "replace").splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) < 3:
        return None
    body = lines[1:-1]  # drop the running header and footer
    section = path.name.removesuffix(".gz").rsplit(".", 1)[-1]
    name_lines: list[str] = []
    for index, line in enumerate(body):
        if line.strip() == "NAME":
            for following in body[index + 1 :]:
                if not following.strip():
                    break
                name_lines.append(following.strip())
            break
    name_line = " ".join(name_lines)
    names, dash, what = name_line.partition(" - ")
    fallback = path.name.removesuffix(".gz").rsplit(".", 1)[0]
    title = f"{names.strip()}({section}) - {what.strip()}" if dash else f"{fallback}({section})"
    return (title + "\n\n" + "\n".join(body).strip() + "\n").encode()


def man_candidates() -> Iterator[Candidate]:
    files = [
        (package, path)
        for package in MAN_SECTIONS
        for path in _man_files(package)
        if not _is_redirect(path)
    ]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        rendered = list(pool.map(lambda item: _render_man(item[1]), files))
    for (package, path), text in zip(files, rendered, strict=True):
        if text is None:
            continue
        name = path.name.removesuffix(".gz")
        yield Candidate(
            f"man:{name}", "man", package, str(path), f"man://{path.parent.name}/{name}.txt", text
        )


# --- conversion and filters -----------------------------------------------------------------

_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+(?:\.\d+)*\.?)\s+\S")


def toc_share(text: str) -> float:
    """Share of the words that sit in short list-item lines: near 1 for a table of contents."""
    total = listed = 0
    for line in text.splitlines():
        words = len(line.split())
        total += words
        if words <= 12 and _LIST_ITEM.match(line):
            listed += words
    return listed / total if total else 1.0


def _convert(candidate: Candidate) -> Page | ConversionFailure:
    converted = convert(SourceItem(candidate.uri, candidate.data), "wikibench")
    if isinstance(converted, ConversionFailure):
        return converted
    text = converted.text
    return Page(
        page_id=candidate.page_id,
        source=candidate.source,
        package=candidate.package,
        path=candidate.path,
        title=converted.title,
        text=text,
        words=len(text.split()),
        text_sha256=hashlib.sha256(text.encode()).hexdigest(),
    )


def percentiles(values: list[int]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    quantiles = statistics.quantiles(ordered, n=20) if len(ordered) > 1 else [ordered[0]] * 19
    return {
        "min": ordered[0],
        "p5": quantiles[0],
        "p25": quantiles[4],
        "median": statistics.median(ordered),
        "p75": quantiles[14],
        "p95": quantiles[18],
        "max": ordered[-1],
        "mean": round(statistics.fmean(ordered), 1),
    }


def build_pages(
    candidates: list[Candidate], toc_threshold: float
) -> tuple[dict[str, list[Page]], dict[str, dict[str, object]]]:
    """Convert every candidate, filter, and return the kept pages plus per-source counts."""
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(_convert, candidates, chunksize=8))
    stats: dict[str, dict[str, object]] = {
        source: {"candidates": 0, "failures": [], "too_short": 0, "toc": 0, "duplicates": 0}
        for source in SOURCE_PACKAGES
    }
    kept: dict[str, list[Page]] = {source: [] for source in SOURCE_PACKAGES}
    seen_text: dict[str, str] = {}
    for candidate, result in sorted(
        zip(candidates, results, strict=True), key=lambda pair: pair[0].page_id
    ):
        counts = stats[candidate.source]
        counts["candidates"] = int(str(counts["candidates"])) + 1
        if isinstance(result, ConversionFailure):
            failures = counts["failures"]
            assert isinstance(failures, list)
            failures.append({"id": candidate.page_id, "reason": result.describe()})
            continue
        if result.words < MIN_WORDS:
            counts["too_short"] = int(str(counts["too_short"])) + 1
            continue
        if toc_share(result.text) >= toc_threshold:
            counts["toc"] = int(str(counts["toc"])) + 1
            continue
        key = hashlib.sha256(normalize_text(result.text).encode()).hexdigest()
        if key in seen_text:
            counts["duplicates"] = int(str(counts["duplicates"])) + 1
            continue
        seen_text[key] = result.page_id
        kept[candidate.source].append(result)
    for source, pages in kept.items():
        stats[source]["kept"] = len(pages)
        stats[source]["words_kept"] = percentiles([page.words for page in pages])
    return kept, stats


def select(kept: dict[str, list[Page]], seed: int) -> dict[str, list[Page]]:
    """At most QUOTAS[source] pages of each source, drawn with random.Random(seed)."""
    rng = random.Random(seed)
    chosen: dict[str, list[Page]] = {}
    for source in sorted(kept):
        pages = sorted(kept[source], key=lambda page: page.page_id)
        quota = QUOTAS[source]
        if len(pages) > quota:
            pages = sorted(rng.sample(pages, quota), key=lambda page: page.page_id)
        else:
            print(f"note: {source} has {len(pages)} pages after filtering, quota {quota}")
        chosen[source] = pages
    return chosen


# --- output ---------------------------------------------------------------------------------


def corpus_row(page: Page, versions: dict[str, str]) -> dict[str, object]:
    return {
        "_id": page.page_id,
        "title": page.title,
        "text": page.text,
        "metadata": {
            "source": page.source,
            "package": page.package,
            "version": versions[page.package],
            "path": page.path,
        },
    }


def write_corpus(folder: Path, pages: list[Page], versions: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for page in pages:
            handle.write(json.dumps(corpus_row(page, versions), ensure_ascii=False) + "\n")


def manifest_text(manifest: dict[str, object], pages: list[Page]) -> str:
    """JSON with one line per page, so a diff of the manifest shows which pages changed."""
    head = json.dumps(manifest, indent=2, ensure_ascii=False)
    rows = ",\n".join(
        "    " + json.dumps([page.page_id, page.text_sha256, page.words], ensure_ascii=False)
        for page in pages
    )
    return head[: head.rfind("}")].rstrip() + ',\n  "pages": [\n' + rows + "\n  ]\n}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(".wikibench/corpus"))
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--check", action="store_true", help="compare with the manifest")
    parser.add_argument("--no-install", action="store_true", help="never run apt-get")
    parser.add_argument("--seed-corpus", type=int, default=SEED_CORPUS)
    parser.add_argument("--seed-pages", type=int, default=SEED_PAGES)
    parser.add_argument("--seed-questions", type=int, default=SEED_QUESTIONS)
    parser.add_argument("--question-pages", type=int, default=QUESTION_PAGES)
    parser.add_argument("--toc-threshold", type=float, default=0.6)
    args = parser.parse_args()
    started = time.perf_counter()

    doc_packages = [name for names in SOURCE_PACKAGES.values() for name in names]
    versions = ensure_packages([*doc_packages, *TOOL_PACKAGES], install=not args.no_install)

    candidates: list[Candidate] = []
    for source, collect in (
        ("py", python_candidates),
        ("pg", postgres_candidates),
        ("debref", debian_reference_candidates),
        ("man", man_candidates),
    ):
        before = time.perf_counter()
        found = list(collect())
        print(f"{source}: {len(found)} candidate pages ({time.perf_counter() - before:.1f} s)")
        candidates.extend(found)

    before = time.perf_counter()
    kept, stats = build_pages(candidates, args.toc_threshold)
    print(f"converted {len(candidates)} pages in {time.perf_counter() - before:.1f} s")
    chosen = select(kept, args.seed_corpus)
    for source, pages in chosen.items():
        stats[source]["selected"] = len(pages)
        stats[source]["words_selected"] = percentiles([page.words for page in pages])

    by_id = {page.page_id: page for pages in chosen.values() for page in pages}
    question_pages = pick_question_pages(
        {source: [page.page_id for page in pages] for source, pages in chosen.items()},
        args.question_pages,
        args.seed_questions,
    )
    total = len(by_id)
    sizes = nested_sizes(list(by_id), question_pages, [*SIZES, total], args.seed_pages)
    order = [by_id[page_id] for page_id in sizes[total]]

    if args.out.exists():
        for old in args.out.glob("wiki-*"):
            shutil.rmtree(old)
    for size, page_ids in sizes.items():
        name = "wiki-all" if size == total else f"wiki-{size}"
        write_corpus(args.out / name, [by_id[page_id] for page_id in page_ids], versions)
    seeds = {"corpus": args.seed_corpus, "pages": args.seed_pages, "questions": args.seed_questions}
    size_names = {("all" if size == total else str(size)): size for size in sizes}
    (args.out / "sizes.json").write_text(
        json.dumps(
            {
                "seeds": seeds,
                "sizes": size_names,
                "question_pages": question_pages,
                "order": sizes[total],
            },
            indent=1,
        )
        + "\n"
    )
    all_words = [page.words for page in order]
    summary = {
        "sources": stats,
        "words_all": percentiles(all_words),
        "pages_over_5000_words": sum(words > 5000 for words in all_words),
        "seconds": round(time.perf_counter() - started, 1),
    }
    (args.out / "stats.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")

    python_versions = {}
    for name in PYTHON_PACKAGES:
        try:
            python_versions[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            python_versions[name] = "not installed"
    manifest: dict[str, object] = {
        "description": "wiki benchmark corpus; rebuild with benchmarks/wiki/build_corpus.py",
        "debian_packages": versions,
        "python_packages": python_versions,
        "seeds": seeds,
        "filters": {
            "min_words": MIN_WORDS,
            "toc_threshold": args.toc_threshold,
            "quotas": QUOTAS,
        },
        "pages_per_source": {source: len(pages) for source, pages in chosen.items()},
        "sizes": size_names,
        "question_pages": question_pages,
        "pages_format": "[id, sha256 of text, words], in wiki order: size N = the first N",
    }
    text = manifest_text(manifest, order)
    if args.check:
        if not args.manifest.exists():
            sys.exit(f"no manifest at {args.manifest}")
        expected = json.loads(args.manifest.read_text())
        actual = json.loads(text)
        differences = [key for key in actual if actual[key] != expected.get(key)]
        if differences:
            sys.exit(f"corpus differs from {args.manifest} in: {', '.join(differences)}")
        print(f"corpus matches {args.manifest}")
    else:
        args.manifest.write_text(text, encoding="utf-8")
        print(f"wrote {args.manifest}")

    print(f"{total} pages: " + ", ".join(f"{s} {len(p)}" for s, p in chosen.items()))
    print(f"sizes: {size_names}; {len(question_pages)} question pages")
    print(f"words per page: {summary['words_all']}")
    print(f"wrote {args.out} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()

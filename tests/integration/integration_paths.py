"""Where the integration tests find the repo's sample wiki and the shared evaluation data."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE_WIKI = REPO / "samples" / "wiki"
SHARED_EVAL = REPO.parent / "shared" / "eval"

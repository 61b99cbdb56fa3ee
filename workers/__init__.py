"""Celery workers for the cluster mode: thin wrappers around pipelines.ingest.cluster_jobs."""

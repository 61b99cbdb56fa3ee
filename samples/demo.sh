#!/usr/bin/env bash
# The demo: ingest the sample wiki on the embedded default, then run the demo queries with
# --explain, exactly as a user would type them. Used by `make demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
WIKIFUSE=${WIKIFUSE:-.venv/bin/wikifuse}
PYTHON=${PYTHON:-.venv/bin/python}

echo "== wikifuse ingest samples/wiki --space demo   (stores in ${WIKIFUSE_HOME})"
"$WIKIFUSE" ingest samples/wiki --space demo
echo
echo "== again: nothing changed, so nothing is converted, embedded or indexed"
"$WIKIFUSE" ingest samples/wiki --space demo
"$PYTHON" -c 'import json,sys; [print(q["kind"] + "\t" + q["query"]) for q in json.load(open(sys.argv[1]))]' \
    samples/demo_queries.json |
while IFS=$'\t' read -r kind query; do
    echo
    echo "== [$kind] wikifuse search \"$query\" --space demo -k 5 --explain"
    "$WIKIFUSE" search "$query" --space demo -k 5 --explain
done

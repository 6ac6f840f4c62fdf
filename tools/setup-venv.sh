#!/usr/bin/env bash
# Creates .venv/ (ignored by git) with the Python packages the tests and benchmarks use as
# peers (tools/python-requirements.txt), or brings an existing one up to date. Idempotent:
# when the requirements file has not changed since the last install it does nothing.
# Prints the venv's python on the last line, so callers can do: py=$(tools/setup-venv.sh | tail -1)
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=tools/python-requirements.txt
stamp=.venv/.requirements-installed
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv >&2
fi
if [ ! -f "$stamp" ] || ! cmp -s "$requirements" "$stamp"; then
  echo "setup-venv: installing $(grep -cv '^\s*\(#\|$\)' "$requirements") packages into .venv" >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$requirements" >&2
  cp "$requirements" "$stamp"
fi
echo "$PWD/.venv/bin/python"

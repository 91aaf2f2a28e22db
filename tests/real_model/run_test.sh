#!/usr/bin/env bash
# ctest real_model.pipeline: the environment scripts/real-model installs (scripts/python-env, and the
# texts' Debian packages), then pytest under its python.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$1
py=$(ROPECHECK_BUILD="$build" "$root/scripts/real-model" --install-only)
export PYTHONPATH="$build/python" ROPECHECK_CLI="$build/ropecheck" ROPECHECK_BUILD="$build" PYTHONDONTWRITEBYTECODE=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false TQDM_DISABLE=1
exec "$py" -m pytest -q -p no:cacheprovider "$root/tests/real_model"

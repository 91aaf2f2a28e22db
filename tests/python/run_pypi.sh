#!/usr/bin/env bash
# ctest's python-pypi tests: pytest under the pinned PyPI environment (scripts/python-env: NumPy 2,
# torch 2), on the build's module, in the working directory ctest gives. The environment is the
# python-pypi.environment fixture's to install; a test run alone installs it too.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
py=$("$root/scripts/python-env")
exec "$py" -m pytest -q -p no:cacheprovider "$@"

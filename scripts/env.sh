# Sourced by the other scripts: a project virtualenv with the given extras.
# Usage: . scripts/env.sh test   (or bench, or "test,bench")
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${IFX_VENV:-$root/.venv}
python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
stamp="$venv/.installed-${1:-none}"
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -e "$root[${1:-test}]"
  touch "$stamp"
fi
PY="$venv/bin/python"

#!/usr/bin/env bash
# The whole test suite from a clean clone: install what the tests need, build, lint, test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use (real verifiers and peers), installed only when missing.
DEBIAN_PACKAGES=(openssl ca-certificates chromium fonts-noto-core poppler-utils qpdf libnss3-tools softhsm2 opensc postgresql nginx)
missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

export ELECTRON_SKIP_BINARY_DOWNLOAD=1
# Install hygiene: installing (its prepare step builds) and building change no tracked file and leave
# no untracked one (on a fresh clone: git status stays empty). npm runs only the install scripts
# listed in package.json "allowScripts" (.npmrc strict-allow-scripts: an unlisted one fails here).
status_before=$(git status --porcelain)
npm ci --no-audit --no-fund
npm run build
status_after=$(git status --porcelain)
if [ "$status_after" != "$status_before" ]; then
  echo "npm ci / npm run build changed the working tree:" >&2
  diff <(echo "$status_before") <(echo "$status_after") >&2 || true
  exit 1
fi
npm run typecheck
npm run lint
# The whole suite on each engine: SQLite (the default), then PostgreSQL (a throwaway cluster, test/run-postgres.ts).
npm test
npm run test:postgres

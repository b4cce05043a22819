#!/usr/bin/env bash
# The whole test suite from a clean clone: install what the tests need, build, lint, test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use (real verifiers and peers), installed only when missing.
DEBIAN_PACKAGES=(openssl ca-certificates chromium fonts-noto-core poppler-utils qpdf libnss3-tools softhsm2 opensc postgresql)
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
npm ci --no-audit --no-fund
npm run build
npm run typecheck
npm run lint
# The whole suite on each engine: SQLite (the default), then PostgreSQL (a throwaway cluster, test/run-postgres.ts).
npm test
npm run test:postgres

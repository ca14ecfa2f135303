#!/usr/bin/env bash
# The Swagger UI test drives Debian's chromium through playwright-core, which downloads no browser of its own:
# install the package when it is missing (as root, as on CI and the development machines), or say how.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "Installing chromium for the Swagger UI test"
  install() { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }
  install || { apt-get update && install; }
  exit 0
fi
echo "ERROR: /usr/bin/chromium is missing; the Swagger UI test needs it. As root: apt-get install -y --no-install-recommends chromium" >&2
exit 1

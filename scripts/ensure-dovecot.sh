#!/usr/bin/env bash
# The email tests read a real IMAP mailbox: Debian's Dovecot, which each test starts on a port and in a folder of
# its own (test/support/dovecot-server.ts). Install the package when it is missing (as root, as on CI and the
# development machines), or say how. The package's own service is not needed and not started by the tests.
set -euo pipefail
[ -x /usr/sbin/dovecot ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "Installing dovecot-imapd for the email tests"
  install() { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends dovecot-imapd; }
  install || { apt-get update && install; }
  exit 0
fi
echo "ERROR: /usr/sbin/dovecot is missing; the email tests need it. As root: apt-get install -y --no-install-recommends dovecot-imapd" >&2
exit 1

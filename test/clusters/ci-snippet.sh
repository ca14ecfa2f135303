#!/usr/bin/env bash
# Cluster e2e tests (test/clusters/*.cluster-spec.ts), to be merged into .ci/run after `npm test`.
# The harness (test/support/clusters/) starts private 3-node RabbitMQ and MariaDB Galera clusters from the
# machine's packages: rabbitmq-server (run from /usr/lib/rabbitmq/bin), galera-4 (libgalera_smm.so, with
# mariadb-server's mariadbd), and rsync for Galera's state transfer. It uses its own ports, epmd and folders,
# so the shared MariaDB/RabbitMQ that `npm test` uses keep running untouched.
set -euo pipefail
cd "$(dirname "$0")/../.."

missing=()
for package in galera-4 rabbitmq-server rsync; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

npm run test:clusters

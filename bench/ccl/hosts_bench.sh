#!/usr/bin/env bash
# cpu AllReduce across 2 and 4 network-namespace hosts (tests/ccl/netns_hosts.py makes them):
# infiniccl over Gloo beside Gloo called directly, 8 KiB to 64 MiB. Needs root, user namespaces or
# passwordless sudo (as the tests). usage: bench/ccl/hosts_bench.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
for hosts in 2 4; do
  python3 tests/ccl/netns_hosts.py "$build/bin/ccl_hosts_bench" "bench-$hosts"
done

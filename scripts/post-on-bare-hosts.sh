#!/usr/bin/env bash
# The whole cPanel vs corehttpd post on this machine: a server and two load
# generators as fresh Debian 13 hosts in their own namespaces (the netns
# driver), nginx and Caddy in corehttpd's place, every column and scenario
# of experiments/corehttpd-vs-cpanel.hcl, ending with the report's
# "Does it reproduce?" table. About 45 minutes; root; not part of CI.
#
#   make post-bare            # or: scripts/post-on-bare-hosts.sh
#   RUID2=/path/to/mod_ruid2.c make post-bare
#
# RUID2 is mod_ruid2 0.9.8's mod_ruid2.c on this machine (uploaded to the
# server and checked against its SHA-256 there), for machines without
# internet; unset, the server fetches it from upstream.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
[ "$(id -u)" = 0 ] || { echo "post-on-bare-hosts: needs root (network namespaces)" >&2; exit 2; }
go build -o bin/wptest ./cmd/wptest
# The file's machines block is Hetzner's: --target netns leaves its server
# type, image and location and takes netns's own (Debian 13, named here so
# the post's release does not follow the driver's default).
vars=(-var load_generators=2 -var image=debian-13)
if [ -n "${RUID2:-}" ]; then
	vars+=(-var "ruid2_source_url=local+file://$(realpath "$RUID2")")
elif [ -f ../shared/third_party/mod_ruid2-0.9.8/mod_ruid2.c ]; then
	vars+=(-var "ruid2_source_url=local+file://$(realpath ../shared/third_party/mod_ruid2-0.9.8/mod_ruid2.c)")
fi
start=$(date +%s)
report=$(bin/wptest run experiments/corehttpd-vs-cpanel.hcl --target netns "${vars[@]}" "$@")
echo "post-on-bare-hosts: done in $(( $(date +%s) - start ))s: $report" >&2
# The claims table: the report's first section.
md="$(dirname "$report")/report.md"
awk '/^## Does it reproduce/{on=1} on&&/^## /&&!/Does it reproduce/{exit} on' "$md"

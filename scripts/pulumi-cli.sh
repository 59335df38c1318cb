#!/usr/bin/env bash
# Builds the real Pulumi CLI from its Go modules (the Go module proxy is the only place it can come
# from here: no installer download works), for the CLI test tier (`npm run test:cli`).
#
#   bash scripts/pulumi-cli.sh                builds (or reuses) and prints the bin folder on stdout
#   bash scripts/pulumi-cli.sh --if-possible  for the test scripts: a CLI the tests find already
#                                             ($WA_PULUMI_CLI_BIN, ~/.pulumi/bin, PATH) is used as it
#                                             is; else the same build where Go is present; where
#                                             neither is, one line on stderr and exit 0 (the CLI
#                                             tier's tests are then reported as skipped)
#
# What it builds, into ~/.cache/pulumi-workspace-access/pulumi-cli/<version>/bin (reused when present):
# - `pulumi`, the CLI: package github.com/pulumi/pulumi/pkg/v3/cmd/pulumi at $PULUMI_CLI_VERSION.
# - `pulumi-language-nodejs`, the Node.js language host. Since sdk v3.90 it is a module of its own
#   with no tags, and the proxy answers 403 for it; sdk/v3 v3.68.0 is the newest release whose sdk
#   module still holds it as a package, so it is built from there (a newer CLI runs an older host:
#   the engine falls back on the RPCs an old host does not implement).
# - `pulumi-resource-pulumi-nodejs`, the dynamic-provider plugin: the script @pulumi/pulumi ships.
# Both go.mod files of Pulumi carry `replace` directives, so `go install pkg@version` refuses them:
# a throwaway wrapper module requires them instead and `go build`s the main packages, with the flags
# of Pulumi's release build.
set -euo pipefail

if_possible=false
case "${1:-}" in
  "") ;;
  --if-possible) if_possible=true ;;
  *) echo "usage: bash scripts/pulumi-cli.sh [--if-possible]  (unknown argument: $1)" >&2; exit 2 ;;
esac

# The version test/cli/support.ts looks for too.
version=${PULUMI_CLI_VERSION:-v3.274.1}
host_version=${PULUMI_LANGUAGE_HOST_VERSION:-v3.68.0}
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
cache=${WA_PULUMI_CLI_CACHE:-$home/.cache/pulumi-workspace-access/pulumi-cli}
out="$cache/$version"
bin="$out/bin"
repo=$(cd "$(dirname "$0")/.." && pwd)

log() { echo "pulumi-cli: $*" >&2; }

write_shim() {
  # The dynamic-provider plugin is a four-line script at the root of the @pulumi/pulumi npm package
  # (the installers ship it beside the CLI): it runs the dynamic-provider host of the project's copy.
  # The cache is shared by every clone and run on the machine, and CLI runs may be executing the plugin
  # right now: it is replaced (a rename, never a write in place) only when it differs.
  local shim="$repo/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs" target="$bin/pulumi-resource-pulumi-nodejs"
  local temp="$target.tmp-$$"
  if [ -f "$shim" ]; then
    cp "$shim" "$temp"
  else
    cat >"$temp" <<'SH'
#!/bin/sh
PULUMI_DYNAMIC_PROVIDER_SCRIPT_PATH=$(node -e "console.log(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))")
if [ ! -z "$PULUMI_DYNAMIC_PROVIDER_SCRIPT_PATH" ]; then
    node "$PULUMI_DYNAMIC_PROVIDER_SCRIPT_PATH" $@
fi
SH
  fi
  chmod +x "$temp"
  if [ -x "$target" ] && cmp -s "$temp" "$target"; then rm -f "$temp"; else mv -f "$temp" "$target"; fi
}

# A CLI the tests find on their own (test/cli/support.ts, in its order, before this cache): the test scripts use it as it is.
existing_cli() {
  local dir
  for dir in "${WA_PULUMI_CLI_BIN:-}" "$home/.pulumi/bin"; do
    if [ -n "$dir" ] && [ -x "$dir/pulumi" ] && [ -x "$dir/pulumi-language-nodejs" ]; then echo "$dir"; return 0; fi
  done
  command -v pulumi 2>/dev/null || return 1
}

if [ -x "$bin/pulumi" ] && [ -x "$bin/pulumi-language-nodejs" ]; then
  write_shim
  log "reusing $bin"
  echo "$bin"
  exit 0
fi
installer="curl -fsSL https://get.pulumi.com | sh -s -- --version ${version#v}"
if $if_possible && found=$(existing_cli); then
  log "using the pulumi the tests find ($found); npm run pulumi-cli builds $version into $bin instead"
  exit 0
fi
if ! command -v go >/dev/null; then
  if $if_possible; then
    log "the CLI tier is skipped: no pulumi (\$WA_PULUMI_CLI_BIN, ~/.pulumi/bin or PATH) and no Go to build one (install Go 1.26+, then: npm run pulumi-cli; or, without Go: $installer)"
    exit 0
  fi
  if found=$(existing_cli); then
    log "no Go toolchain on PATH to build $version; the tests use the pulumi at $found (npm test finds it)"
    exit 3
  fi
  log "no Go toolchain on PATH: install Go 1.26 or later and run again, or without Go install Pulumi's CLI: $installer"
  exit 3
fi

mkdir -p "$bin"
work=$(mktemp -d)
trap 'status=$?; rm -rf "$work"; if [ "$status" -ne 0 ]; then log "the build failed (above): check Go 1.26+ and the Go module proxy, or without Go install Pulumi'"'"'s CLI: $installer"; fi' EXIT
export GOFLAGS="-mod=mod" CGO_ENABLED=0
ldflags="-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version"
started=$SECONDS

build() { # build NAME MODULE-DIR PACKAGE
  local name=$1 dir=$2 pkg=$3
  log "building $name ($pkg) ..."
  (cd "$dir" && go build -trimpath -tags osusergo,grpcnotrace -ldflags "$ldflags" -o "$bin/$name.tmp" "$pkg")
  mv "$bin/$name.tmp" "$bin/$name"
  log "built $name in $((SECONDS - started)) s"
}

if [ ! -x "$bin/pulumi" ]; then
  mkdir -p "$work/cli"
  cat >"$work/cli/go.mod" <<MOD
module pulumi-workspace-access/pulumi-cli

go 1.26

require (
	github.com/pulumi/pulumi/pkg/v3 $version
	github.com/pulumi/pulumi/sdk/v3 $version
)

// As in Pulumi's own pkg/go.mod (a fork that matters only on Windows).
replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
MOD
  printf 'package tools\n\nimport _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"\n' >"$work/cli/tools.go"
  log "resolving the modules of pkg/v3 $version (cold: several minutes, a few GB of module cache)"
  (cd "$work/cli" && go mod tidy >&2)
  build pulumi "$work/cli" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
fi

if [ ! -x "$bin/pulumi-language-nodejs" ]; then
  mkdir -p "$work/host"
  cat >"$work/host/go.mod" <<MOD
module pulumi-workspace-access/pulumi-language-nodejs

go 1.26

require github.com/pulumi/pulumi/sdk/v3 $host_version
MOD
  printf 'package tools\n\nimport _ "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"\n' >"$work/host/tools.go"
  (cd "$work/host" && go mod tidy >&2)
  build pulumi-language-nodejs "$work/host" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs
fi

write_shim
"$bin/pulumi" version >&2
log "ready in $bin ($((SECONDS - started)) s)"
echo "$bin"

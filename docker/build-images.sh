#!/usr/bin/env bash
# Builds minimal local Docker images from the redis-server and etcd binaries installed on this
# machine (e.g. Debian's redis-server and etcd-server packages), for machines that cannot pull
# from a registry. Each image holds one binary set plus exactly the shared libraries `ldd` names,
# packed with `docker import`: no shell, no package manager, no base image.
#
#   docker/build-images.sh                      # builds lockcheck-local/redis:debian and lockcheck-local/etcd:debian
#   docker/build-images.sh --only redis         # just one of them
#   docker/build-images.sh --redis-image my/redis:x --etcd-image my/etcd:y
#
# Binaries are found on PATH, or given with REDIS_SERVER=/path and ETCD=/path.
# redis-cli and etcdctl are packed too when found (REDIS_CLI, ETCDCTL), so the compose files'
# health checks work with these images as with the public ones.
# Then: LOCKCHECK_REDIS_IMAGE=lockcheck-local/redis:debian LOCKCHECK_ETCD_IMAGE=lockcheck-local/etcd:debian
set -euo pipefail

redis_image=lockcheck-local/redis:debian
etcd_image=lockcheck-local/etcd:debian
only=all

usage() {
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case "$1" in
    --redis-image) redis_image="$2"; shift 2 ;;
    --etcd-image) etcd_image="$2"; shift 2 ;;
    --only)
      case "$2" in redis|etcd) only="$2" ;; *) echo "build-images.sh: --only takes redis or etcd, not '$2'" >&2; exit 2 ;; esac
      shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build-images.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

command -v docker >/dev/null || { echo "build-images.sh: the docker CLI is not on PATH (Debian: apt-get install docker.io)" >&2; exit 1; }
command -v ldd >/dev/null || { echo "build-images.sh: ldd is not on PATH (Debian: libc-bin)" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "build-images.sh: no Docker engine answers (is dockerd running? try: docker info)" >&2; exit 1; }

workdir="$(mktemp -d -t lockcheck-images.XXXXXX)"
trap 'rm -rf "$workdir"' EXIT INT TERM

# find_binary VAR name: the path in $VAR, else `name` on PATH, else empty.
find_binary() {
  local given="${!1:-}"
  if [ -n "$given" ]; then
    [ -x "$given" ] || { echo "build-images.sh: $1=$given is not an executable file" >&2; exit 1; }
    echo "$given"
  else
    command -v "$2" || true
  fi
}

# add_binary ROOTFS SOURCE NAME: copies SOURCE (symlinks resolved) to ROOTFS/usr/local/bin/NAME,
# with every shared library it loads, at the paths the dynamic loader will look for them.
add_binary() {
  local rootfs="$1" src="$2" name="$3" lib
  install -D -m 0755 "$(readlink -f "$src")" "$rootfs/usr/local/bin/$name"
  # ldd lines: "libx.so => /path/libx.so (0x...)", "/lib64/ld-linux-x86-64.so.2 (0x...)", "linux-vdso.so.1 (0x...)".
  ldd "$src" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u |
    while read -r lib; do
      mkdir -p "$rootfs$(dirname "$lib")"
      cp -L "$lib" "$rootfs$lib"
    done
}

# new_rootfs DIR: the few files every image needs besides its binaries.
new_rootfs() {
  local rootfs="$1"
  mkdir -p "$rootfs/etc" "$rootfs/data" "$rootfs/tmp"
  chmod 1777 "$rootfs/tmp"
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  # Name lookups of peers (etcd members by container name) go through Docker's embedded DNS.
  printf 'hosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
}

# pack ROOTFS IMAGE CHANGES...: imports ROOTFS as IMAGE, owned by root, with Dockerfile-style changes.
pack() {
  local rootfs="$1" image="$2"
  shift 2
  local args=()
  for change in "$@"; do args+=(--change "$change"); done
  local previous
  previous="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -c . |
    docker import "${args[@]}" --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change 'WORKDIR /data' - "$image" >/dev/null
  # The image this build replaced (now untagged) goes too, unless a container still uses it.
  if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{.Id}}' "$image")" ]; then
    docker rmi "$previous" >/dev/null 2>&1 || true
  fi
  echo "built $image ($(du -sh "$rootfs" | cut -f1) unpacked)"
}

build_redis() {
  local server cli rootfs="$workdir/redis"
  server="$(find_binary REDIS_SERVER redis-server)"
  [ -n "$server" ] || { echo "build-images.sh: redis-server not found (Debian: apt-get install redis-server, or set REDIS_SERVER=/path)" >&2; exit 1; }
  cli="$(find_binary REDIS_CLI redis-cli)"
  new_rootfs "$rootfs"
  # Debian's redis-server is a symlink to a multi-call binary that picks its role from argv[0]:
  # the copy must be named redis-server.
  add_binary "$rootfs" "$server" redis-server
  [ -z "$cli" ] || add_binary "$rootfs" "$cli" redis-cli
  pack "$rootfs" "$redis_image" 'EXPOSE 6379' 'CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no"]'
}

build_etcd() {
  local etcd ctl rootfs="$workdir/etcd"
  etcd="$(find_binary ETCD etcd)"
  [ -n "$etcd" ] || { echo "build-images.sh: etcd not found (Debian: apt-get install etcd-server, or set ETCD=/path)" >&2; exit 1; }
  ctl="$(find_binary ETCDCTL etcdctl)"
  new_rootfs "$rootfs"
  mkdir -p "$rootfs/var/lib/etcd"
  add_binary "$rootfs" "$etcd" etcd
  [ -z "$ctl" ] || add_binary "$rootfs" "$ctl" etcdctl
  pack "$rootfs" "$etcd_image" 'EXPOSE 2379 2380' 'ENV ETCDCTL_API=3' 'CMD ["etcd"]'
}

case "$only" in
  all) build_redis; build_etcd ;;
  redis) build_redis ;;
  etcd) build_etcd ;;
esac

#!/usr/bin/env bash
# Builds the PromptPipe image without pulling from any registry, then tries it.
#
#   1. a Debian bookworm base (python3, python3-venv, libmagic1, tzdata, ca-certificates) made
#      from Debian's packages with mmdebstrap and committed as $BASE_IMAGE (kept: later runs reuse
#      it; REBUILD_BASE=1 makes it again);
#   2. the Dockerfile built on it with `buildah bud --isolation chroot`, PromptPipe from PyPI;
#   3. from the built image's root file system (buildah mount + chroot, as the image's user, with
#      its environment and working directory): `promptpipe check`, an import of the WhatsApp
#      transport (neonize's Go library, libmagic), then `promptpipe serve` with
#      PROMPTPIPE_TRANSPORT=dry-run until it has started and /health answers, stopped with SIGTERM.
# Its containers are removed at the end; the images stay. CI does not run it.
#
# Run as root on a Debian-like host with buildah and mmdebstrap (apt-get install buildah mmdebstrap).
# Settings (environment): IMAGE, BASE_IMAGE, MIRROR, SECURITY_MIRROR, REBUILD_BASE=1,
# CA_BUNDLE (lent to pip during the build; default the host's bundle, so a TLS-inspecting proxy the
# host trusts works; it does not end up in the image).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IMAGE=${IMAGE:-localhost/promptpipe:latest}
BASE_IMAGE=${BASE_IMAGE:-localhost/debian-bookworm-python:latest}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${SECURITY_MIRROR:-http://deb.debian.org/debian-security}
REBUILD_BASE=${REBUILD_BASE:-0}
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
BASE_PACKAGES=python3,python3-venv,libmagic1,tzdata,ca-certificates
SYSTEM_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

say() { printf '\n== %s\n' "$*"; }
die() { printf 'build_image.sh: %s\n' "$*" >&2; exit 1; }

[[ $EUID -eq 0 ]] || die "run as root (mmdebstrap, buildah mount and chroot need it)"
for tool in buildah mmdebstrap chroot unshare; do
    command -v "$tool" >/dev/null || die "$tool is missing (apt-get install -y buildah mmdebstrap)"
done

containers=()
work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid" 2>/dev/null || true; fi
    local ctr
    for ctr in "${containers[@]}"; do
        buildah umount "$ctr" >/dev/null 2>&1 || true
        buildah rm "$ctr" >/dev/null 2>&1 || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
start=$SECONDS

# --- 1. The base ---------------------------------------------------------------------------------
if [[ $REBUILD_BASE != 1 ]] && buildah inspect --type image "$BASE_IMAGE" >/dev/null 2>&1; then
    say "base: $BASE_IMAGE (made earlier; REBUILD_BASE=1 makes it again)"
else
    say "base: mmdebstrap bookworm ($BASE_PACKAGES) -> $BASE_IMAGE"
    ctr=$(buildah from scratch)
    containers+=("$ctr")
    rootfs=$(buildah mount "$ctr")
    # Like Docker's slim images: merged /usr without the usrmerge package (and the perl it needs),
    # no recommends, documentation, manual pages or translations; no apt lists or caches are kept.
    mmdebstrap --variant=minbase --include="$BASE_PACKAGES" \
        --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
        --aptopt='APT::Install-Recommends "false"' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
        bookworm "$rootfs" \
        "deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" \
        "deb $SECURITY_MIRROR bookworm-security main"
    buildah umount "$ctr" >/dev/null
    buildah config --env PATH="$SYSTEM_PATH" --cmd /bin/bash \
        --label org.opencontainers.image.description="Debian bookworm minbase + $BASE_PACKAGES (mmdebstrap)" "$ctr"
    buildah commit --quiet --rm "$ctr" "$BASE_IMAGE" >/dev/null
    containers=()
    buildah images --format '{{.Name}}:{{.Tag}} {{.ID}} {{.Size}}' "$BASE_IMAGE"
fi
base_done=$SECONDS

# --- 2. The image ----------------------------------------------------------------------------------
say "build: buildah bud --isolation chroot --build-arg BASE=$BASE_IMAGE -t $IMAGE"
secret=()
[[ -s $CA_BUNDLE ]] && secret=(--secret "id=pip_cert,src=$CA_BUNDLE")
buildah bud --isolation chroot --layers --pull-never --build-arg "BASE=$BASE_IMAGE" "${secret[@]}" \
    --iidfile "$work/iid" -t "$IMAGE" -f "$repo/Dockerfile" "$repo"
build_done=$SECONDS

# --- 3. Try it from the image's root file system ---------------------------------------------------
ctr=$(buildah from --pull-never "$IMAGE")
containers+=("$ctr")
root=$(buildah mount "$ctr")
config() { buildah inspect --type image --format "$1" "$IMAGE"; }
mapfile -t image_env < <(config '{{range .OCIv1.Config.Env}}{{println .}}{{end}}')
mapfile -t entrypoint < <(config '{{range .OCIv1.Config.Entrypoint}}{{println .}}{{end}}')
workdir=$(config '{{.OCIv1.Config.WorkingDir}}')
user=$(config '{{.OCIv1.Config.User}}')
IFS=: read -r _ _ uid gid _ home _ < <(grep -E "^${user:-root}:" "$root/etc/passwd") \
    || die "the image's user ${user:-root} is not in its /etc/passwd"

# A command in the image as `docker run` would start it: its user, environment (plus ours) and
# working directory. /dev and /proc are mounted in a mount namespace of its own, so they go away
# with the process. Each step execs the next, so the pid started is the command's own and
# signals reach it directly.
in_image() {  # in_image VAR=value... -- command... : sets run to the command line
    local extra=()
    while [[ $1 != -- ]]; do extra+=("$1"); shift; done
    shift
    # shellcheck disable=SC2016  # $0 and $@ are the inner shell's
    run=(unshare --mount --propagation private -- /bin/sh -c
         'mount --rbind /dev "$0/dev" && mount -t proc proc "$0/proc" && exec "$@"' "$root"
         chroot --userspec="$uid:$gid" --groups="$gid" "$root"
         /usr/bin/env -i -C "${workdir:-/}" HOME="$home" "${image_env[@]}" "${extra[@]}" "$@")
}
port=$(chroot "$root" /usr/bin/python3 -c \
    'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
test_env=(PROMPTPIPE_TRANSPORT=dry-run OPENAI_API_KEY=sk-not-used-by-dry-run API_LISTEN="127.0.0.1:$port")

say "run: ${entrypoint[*]} check (user $user, ${test_env[*]})"
in_image "${test_env[@]}" -- "${entrypoint[@]}" check
"${run[@]}"

say "run: python -c 'import promptpipe.transport.whatsapp' (neonize's Go library, libmagic)"
in_image -- python -c 'import magic, neonize, promptpipe.transport.whatsapp
from importlib.metadata import version
print("WhatsApp transport loads: neonize", version("neonize"), "with", magic.from_buffer(b"%PDF-1.4"))'
"${run[@]}"

say "run: ${entrypoint[*]} serve (dry-run; stopped with SIGTERM once /health answers)"
log=$work/serve.log
in_image "${test_env[@]}" -- "${entrypoint[@]}" serve
"${run[@]}" >"$log" 2>&1 &
server_pid=$!
health=
for _ in $(seq 120); do
    kill -0 "$server_pid" 2>/dev/null || break
    if grep -q '"service_started"' "$log" && health=$(chroot "$root" /usr/bin/python3 -c '
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=2) as answer:
    print(answer.status, answer.read().decode())' "http://127.0.0.1:$port/health" 2>/dev/null); then
        break
    fi
    sleep 0.5
done
[[ -n $health ]] && echo "GET /health -> $health"
kill -TERM "$server_pid" 2>/dev/null || true
status=0
for _ in $(seq 60); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
kill -0 "$server_pid" 2>/dev/null && { kill -KILL "$server_pid"; echo "serve did not stop within 30 s of SIGTERM"; }
wait "$server_pid" || status=$?
server_pid=
cat "$log"
echo "serve exited with status $status"
[[ -n $health ]] || die "serve did not start (no service_started, or /health did not answer)"
if [[ $status -ne 0 ]] || ! grep -q '"service_stopped"' "$log"; then die "serve did not stop cleanly"; fi

say "image"
buildah images --format '{{.Name}}:{{.Tag}}  id {{.ID}}  size {{.Size}}' "$IMAGE"
printf 'id %s\n' "$(cat "$work/iid")"
printf 'took %ss (base %ss, build %ss, tries %ss)\n' $((SECONDS - start)) $((base_done - start)) \
    $((build_done - base_done)) $((SECONDS - build_done))

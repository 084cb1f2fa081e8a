#!/bin/sh
# Installs, with apt-get, whatever a fresh Debian 12 machine lacks to build
# libroceTel, its examples and its tests. Only missing packages are
# installed, so a second run costs a dpkg query. Run as root (or with sudo
# available); set RTEL_NO_APT=1 to skip.
#
#   tests/install-deps.sh [build|test]   (default: test, the full set)
set -eu

what=${1:-test}
build_pkgs="gcc make autoconf automake libtool pkg-config libpcap-dev check
  libmicrohttpd-dev"
test_pkgs="$build_pkgs g++ tshark python3 python3-scapy abigail-tools clang
  libclang-rt-14-dev llvm binutils groff man-db valgrind bc dwarves
  clang-format pmacct nfdump libfixbuf-tools clickhouse-server
  clickhouse-client prometheus chromium chromium-driver python3-selenium
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"
case $what in
  build) pkgs=$build_pkgs ;;
  test) pkgs=$test_pkgs ;;
  *) echo "usage: $0 [build|test]" >&2; exit 2 ;;
esac

[ "${RTEL_NO_APT:-0}" = 1 ] && exit 0
missing=
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
  SUDO=
elif command -v sudo >/dev/null 2>&1; then
  SUDO=sudo
else
  echo "$0: missing packages:$missing (run as root to install them)" >&2
  exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no, quietly.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
  $SUDO debconf-set-selections 2>/dev/null || true
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing

#!/usr/bin/env bash
# Install pgvector into the system PostgreSQL (Debian or Ubuntu, as root), so that the retrieval
# store's `postgresql://` backend can `CREATE EXTENSION vector`.
#
#   scripts/install-pgvector.sh                       # every installed PostgreSQL major version
#   scripts/install-pgvector.sh --major 15            # one of them
#   scripts/install-pgvector.sh --check postgresql://postgres@127.0.0.1:5432/test
#                                                     # then prove CREATE EXTENSION works there
#
# For each major version it uses, in this order:
#   1. pgvector already installed (its vector.control is present): nothing to do, no network;
#   2. apt's `postgresql-<major>-pgvector` when the configured repositories have it
#      (Debian trixie and later for its own PostgreSQL, or apt.postgresql.org);
#   3. Debian's pgvector source (the orig tarball of Debian's package, checked against its SHA-256)
#      built against `postgresql-server-dev-<major>` with portable flags and installed with
#      `make install`. pgvector's Makefile compiles with -march=native by default, which makes a
#      binary that dies with SIGILL on a CPU without the build machine's instructions; OPTFLAGS=""
#      is what Debian's own package does (its patch "no-native").
# Set PGVECTOR_TARBALL=/path/to/pgvector_0.8.0.orig.tar.gz to build from a local copy (offline).
# Remove a source build with: make -C <unpacked source> uninstall PG_CONFIG=/usr/lib/postgresql/<major>/bin/pg_config
set -euo pipefail

PGVECTOR_VERSION=0.8.0
PGVECTOR_SHA256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
PGVECTOR_URL="http://deb.debian.org/debian/pool/main/p/pgvector/pgvector_${PGVECTOR_VERSION}.orig.tar.gz"

majors=()
check_url=""
while [ $# -gt 0 ]; do
  case "$1" in
    --major) majors+=("${2:?--major needs a version, e.g. 15}"); shift 2 ;;
    --check) check_url="${2:?--check needs a postgresql:// URL}"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "install-pgvector: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

say() { echo "install-pgvector: $*"; }
die() { echo "install-pgvector: $*" >&2; exit 1; }

if [ ${#majors[@]} -eq 0 ]; then
  for bin in /usr/lib/postgresql/*/bin/postgres; do
    [ -x "$bin" ] && majors+=("$(basename "$(dirname "$(dirname "$bin")")")")
  done
  [ ${#majors[@]} -gt 0 ] || die "no PostgreSQL server under /usr/lib/postgresql: install Debian's postgresql package first"
fi

apt_updated=""
work=""
trap '[ -z "$work" ] || rm -rf "$work"' EXIT
apt_install() {
  [ "$(id -u)" -eq 0 ] || die "installing $* needs root: run this script with sudo"
  if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

build_from_source() {
  local major=$1 pg_config=/usr/lib/postgresql/$1/bin/pg_config tarball
  [ "$(id -u)" -eq 0 ] || die "building pgvector for PostgreSQL $major needs root: run this script with sudo"
  say "apt has no postgresql-$major-pgvector: building Debian's pgvector $PGVECTOR_VERSION source for PostgreSQL $major"
  local need=()
  # pg_config and the PGXS makefiles come with the client package, the server headers with server-dev
  [ -f "$("$pg_config" --includedir-server 2>/dev/null)/postgres.h" ] || need+=("postgresql-server-dev-$major")
  command -v make >/dev/null 2>&1 || need+=(make)
  command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
  if [ -z "${PGVECTOR_TARBALL:-}" ] && ! command -v curl >/dev/null 2>&1; then need+=(curl); fi
  [ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

  work=$(mktemp -d)
  tarball="${PGVECTOR_TARBALL:-$work/pgvector_${PGVECTOR_VERSION}.orig.tar.gz}"
  if [ -z "${PGVECTOR_TARBALL:-}" ]; then
    curl -fsS --retry 3 -o "$tarball" "$PGVECTOR_URL" || die "cannot download $PGVECTOR_URL (set PGVECTOR_TARBALL to a local copy)"
  fi
  echo "$PGVECTOR_SHA256  $tarball" | sha256sum -c --quiet - \
    || die "$tarball is not Debian's pgvector_${PGVECTOR_VERSION}.orig.tar.gz (SHA-256 mismatch)"
  tar -xzf "$tarball" -C "$work"
  make -s -C "$work/pgvector-$PGVECTOR_VERSION" OPTFLAGS="" PG_CONFIG="$pg_config" -j"$(nproc)" >/dev/null
  make -s -C "$work/pgvector-$PGVECTOR_VERSION" OPTFLAGS="" PG_CONFIG="$pg_config" install >/dev/null
  rm -rf "$work"
  work=""
}

for major in "${majors[@]}"; do
  [ -x "/usr/lib/postgresql/$major/bin/postgres" ] || die "PostgreSQL $major is not installed here (no /usr/lib/postgresql/$major/bin/postgres)"
  control="/usr/share/postgresql/$major/extension/vector.control"
  if [ -f "$control" ]; then
    say "pgvector $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$control") is installed for PostgreSQL $major"
    continue
  fi
  [ "$(id -u)" -eq 0 ] || die "pgvector is not installed for PostgreSQL $major; installing it needs root: run this script with sudo"
  if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
  candidate=$(apt-cache policy "postgresql-$major-pgvector" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  if [ -n "$candidate" ] && [ "$candidate" != "(none)" ]; then
    say "installing apt's postgresql-$major-pgvector"
    apt_install "postgresql-$major-pgvector"
  else
    build_from_source "$major"
  fi
  [ -f "$control" ] || die "pgvector for PostgreSQL $major did not install ($control is missing)"
  say "pgvector $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$control") installed for PostgreSQL $major"
done

if [ -n "$check_url" ]; then
  # in a transaction that is rolled back: proves the extension loads and computes, and leaves nothing
  # (the 64-dimension distance runs pgvector's vectorised loop, where a non-portable build dies)
  command -v psql >/dev/null 2>&1 || die "psql is not installed: cannot check $check_url"
  v64=$(printf '[%s]' "$(seq -s, 1 64)")
  psql "$check_url" -X -q -t -A -v ON_ERROR_STOP=1 >/dev/null <<SQL || die "CREATE EXTENSION vector failed on $check_url"
BEGIN;
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '$v64'::vector <-> '$v64'::vector;
ROLLBACK;
SQL
  say "CREATE EXTENSION vector works on $check_url"
fi

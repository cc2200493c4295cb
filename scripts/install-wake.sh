#!/usr/bin/env bash
# make install-wake: puts the drop-in that gives the timer service
# CAP_WAKE_ALARM (share/systemd/user/tocsin.service.d/wake.conf) beside the
# unit, unless this machine's systemd would then refuse to start the service:
# systemd 255 and 256 fail every user unit that asks for ambient capabilities
# with status 218/CAPABILITIES (systemd #33167, fixed in 257 by PR #32937).
#   scripts/install-wake.sh DESTINATION-FOLDER
# WAKE_FORCE=1 installs anyway (a distribution that carries the fix);
# SYSTEMCTL names the program asked for the version (systemctl).
set -euo pipefail
folder=$1
version=$("${SYSTEMCTL:-systemctl}" --version 2>/dev/null | awk 'NR == 1 { print $2 }' || true)
case "$version" in
  255|255.*|256|256.*)
    if [ "${WAKE_FORCE:-}" != 1 ]; then
      echo "install-wake: not installed: systemd $version fails to start a user unit that asks for a capability" >&2
      echo "  (status 218/CAPABILITIES; systemd #33167, fixed in 257), so the timer service would not start at all." >&2
      echo "  Alarms still ring while the machine is awake. WAKE_FORCE=1 installs it anyway, for a systemd with the fix." >&2
      exit 1
    fi
    echo "install-wake: systemd $version, installed as asked (WAKE_FORCE=1); if the service fails to start, remove it" >&2 ;;
  '') echo "install-wake: cannot tell the systemd version; on systemd 255 or 256 the service would not start with it" >&2 ;;
esac
install -d "$folder/tocsin.service.d"
install -m 0644 share/systemd/user/tocsin.service.d/wake.conf "$folder/tocsin.service.d/"

#!/usr/bin/env bash
# Runs a command inside a throw-away headless desktop session, then tears the
# session down:
#   - Xvfb (a real X server in memory), DISPLAY set;
#   - a private D-Bus session bus, DBUS_SESSION_BUS_ADDRESS set;
#   - dunst, a notification server that draws on that X screen; its context
#     menu "dmenu" is scripts/pick-action.sh, so a test chooses a button by
#     writing its label to $TOCSIN_SESSION/want-action and running
#     `dunstctl context`;
#   - a user-mode PulseAudio server with a null sink whose monitor is
#     recorded to $TOCSIN_SESSION/audio.raw (s16le, 44100 Hz, stereo) from the
#     start time in $TOCSIN_SESSION/audio.start (CLOCK_BOOTTIME seconds).
# Usage: scripts/desktop-session.sh COMMAND [ARGS...]   (exit status: COMMAND's)
set -u
here=$(cd "$(dirname "$0")" && pwd)
session=$(mktemp -d /tmp/tocsin-session.XXXXXX)
export TOCSIN_SESSION=$session
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "${KEEP_SESSION:-}" ] || rm -rf "$session"
}
trap cleanup EXIT

exec 3> "$session/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp > "$session/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 250); do [ -s "$session/display" ] && break; sleep 0.02; done
exec 3>&-
[ -s "$session/display" ] || { echo "desktop-session: Xvfb did not start" >&2; cat "$session/xvfb.log" >&2; exit 1; }
export DISPLAY=":$(head -n1 "$session/display")"

# With TOCSIN_SERVICE_DIR, the bus also activates the services found there
# (the timer service as make install stages it).
bus_config=(--session)
if [ -n "${TOCSIN_SERVICE_DIR:-}" ]; then
  cat > "$session/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <include>/usr/share/dbus-1/session.conf</include>
  <servicedir>$TOCSIN_SERVICE_DIR</servicedir>
</busconfig>
CONF
  bus_config=(--config-file="$session/bus.conf")
fi
{ read -r address; read -r bus_pid; } < <(dbus-daemon "${bus_config[@]}" --fork --print-address=1 --print-pid=1)
export DBUS_SESSION_BUS_ADDRESS=$address
pids+=("$bus_pid")

export HOME="$session/home" XDG_RUNTIME_DIR="$session/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
cat > "$session/dunstrc" <<CONF
[global]
    dmenu = $here/pick-action.sh
    browser = /bin/true
    # Tests read every alert back from the history (dunst keeps 20 by default).
    history_length = 5000
    # At most 10 drawn at once, the rest queued (as GNOME and mako do): with
    # the 200 alarms of the SIGKILL tests all drawn, each new one redrew the
    # whole stack and a loaded machine's dunst fell 25 s behind its replies.
    notification_limit = 10
CONF
dunst -config "$session/dunstrc" > "$session/dunst.log" 2>&1 &
pids+=($!)

# Not realtime: as root PulseAudio runs its sink's thread SCHED_RR under a
# 200 ms RLIMIT_RTTIME, and the kernel SIGKILLs it when mixing the many
# alarms of the SIGKILL tests keeps that thread busy for longer (seen on a
# loaded machine: every later sound test then failed).
pulseaudio --daemonize=no --exit-idle-time=-1 --disallow-exit -n --realtime=no --high-priority=no \
  --load="module-native-protocol-unix auth-anonymous=1 socket=$session/pulse" \
  --load="module-null-sink sink_name=tocsin norewinds=1" > "$session/pulse.log" 2>&1 &
pids+=($!)
export PULSE_SERVER="unix:$session/pulse"
for _ in $(seq 200); do pactl info > /dev/null 2>&1 && break; sleep 0.02; done
pactl set-default-sink tocsin || { echo "desktop-session: PulseAudio did not start" >&2; cat "$session/pulse.log" >&2; exit 1; }
for _ in $(seq 200); do
  dbus-send --session --print-reply --dest=org.freedesktop.Notifications /org/freedesktop/Notifications \
    org.freedesktop.Notifications.GetServerInformation > /dev/null 2>&1 && break
  sleep 0.02
done

awk '{ print $1 }' /proc/uptime > /dev/null  # (boot clock read below, as close to parec's start as can be)
parec -d tocsin.monitor --raw --format=s16le --rate=44100 --channels=2 > "$session/audio.raw" 2> "$session/parec.log" &
pids+=($!)
python3 -c 'import time; print(time.clock_gettime(time.CLOCK_BOOTTIME))' > "$session/audio.start"

# Services the bus starts get the session's environment (sound server, home).
dbus-update-activation-environment DISPLAY HOME XDG_RUNTIME_DIR PULSE_SERVER TOCSIN_SESSION 2>/dev/null || true
echo "desktop-session: DISPLAY=$DISPLAY, bus and PulseAudio in $session" >&2
"$@"

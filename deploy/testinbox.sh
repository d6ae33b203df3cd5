#!/bin/sh
# The start of compose.yaml's testinbox service (docs/test-inbox.md). The development SMTP listener and
# Mailpit's API without credentials (MAILROOM_MAILPIT_OPEN_SERVER) need their Sandbox server at start, the
# server needs the account, and the account is made by the first `serve`: so on the first start one short
# `serve` without either makes the account (printing its tokens), then `server add` makes "Test inbox"
# (printing its token, a Mailpit API password, once). A marker beside the database makes later starts go
# straight to `serve`.
set -eu
CLI=${TESTINBOX_CLI:-node dist/cli.js}
MARK="$(dirname "$MAILROOM_DATABASE_URL")/.testinbox-ready"
if [ ! -e "$MARK" ]; then
  MAILROOM_DEV_SMTP_PORT= MAILROOM_MAILPIT_OPEN_SERVER= $CLI serve &
  pid=$!
  tries=0
  until node -e "fetch('http://127.0.0.1:' + (process.env.MAILROOM_PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; do
    tries=$((tries + 1))
    if [ "$tries" -gt 120 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "testinbox: the first start did not become ready" >&2
      exit 1
    fi
    sleep 1
  done
  kill -TERM "$pid"
  wait "$pid" || true
  # A server of that name already there (the marker was lost) is kept: `server add` refuses the name.
  $CLI server add "Test inbox" --sandbox || true
  touch "$MARK"
fi
exec $CLI serve

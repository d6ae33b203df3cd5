#!/usr/bin/env bash
# Installs what the tests need beyond npm packages, and makes sure the local PostgreSQL is running.
# Safe to run repeatedly; does nothing that is already done.
set -uo pipefail
need=(postfix chromium swaks spamassassin spamc prometheus)
# The compatibility tier's real clients (test/compat): the hosted service's Ruby gem with Mail and ActionMailer,
# Symfony's Postmark bridge (Laravel's path), django-anymail.
need+=(ruby-postmark ruby-mail ruby-actionmailer php-cli php-symfony-postmark-mailer php-symfony-http-client python3-django python3-django-anymail)
# (areas add Debian packages their tests need here, e.g. postfix for the real-MTA bounce test)
# The deliverability tier (test/deliverability): dkimpy and opendkim-testmsg as independent DKIM verifiers.
need+=(python3-dkim opendkim-tools)
if [ ${#need[@]} -gt 0 ]; then
  missing=()
  for p in "${need[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || echo "setup: could not install ${missing[*]}"
  fi
fi
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
fi
exit 0

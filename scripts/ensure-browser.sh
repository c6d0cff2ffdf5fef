#!/usr/bin/env bash
# The report tests open pages in a real browser: Debian's chromium. Installed when missing and
# this user may (root, as CI runs); otherwise one line says what the report tests will need.
# `make test` and `.ci/run` both call this, so a fresh machine gets the same suite from either.
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 ||
    echo "could not install chromium (apt-get failed): the report tests will fail" >&2
else
  echo "chromium is not installed and this user cannot install it (sudo apt-get install chromium): the report tests will fail" >&2
fi
exit 0

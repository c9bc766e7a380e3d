#!/bin/sh
# Writes deploy/nginx/shortlink.conf to stdout with its ${SHORTLINK_...} placeholders filled in
# from the environment (docs/operations.md, nginx). envsubst is told the names, so nginx's own
# $variables ($host, $scheme, ...) stay as they are. test/deploy/nginx.test.ts runs this script.
set -eu

names='SHORTLINK_HTTP_PORT SHORTLINK_HTTPS_PORT SHORTLINK_UPSTREAM_A SHORTLINK_UPSTREAM_B SHORTLINK_CERT SHORTLINK_CERT_KEY SHORTLINK_ACME_ROOT'

command -v envsubst >/dev/null 2>&1 || { echo 'render.sh: envsubst is missing (Debian: apt-get install gettext-base)' >&2; exit 2; }

# envsubst would put an empty string in place of a variable that is not set: a typo would
# become "listen ;" or "server ;", so every one must be given.
shell_format=''
for name in $names; do
  eval "value=\${$name:-}"
  if [ -z "$value" ]; then
    echo "render.sh: $name is not set (needed: $names)" >&2
    exit 2
  fi
  shell_format="$shell_format \${$name}"
done

template="$(dirname "$0")/shortlink.conf"
rendered=$(envsubst "$shell_format" < "$template")
# A placeholder added to the file but not to $names would reach nginx as a variable it does not know.
if printf '%s\n' "$rendered" | grep -q '\${SHORTLINK_[A-Z_]*}'; then
  echo "render.sh: $template has a placeholder this script does not fill in:" >&2
  printf '%s\n' "$rendered" | grep '\${SHORTLINK_[A-Z_]*}' >&2
  exit 2
fi
printf '%s\n' "$rendered"

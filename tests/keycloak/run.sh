#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh MCPC DEMO - interop with an authorization server no one here wrote:
# Keycloak (org.keycloak:keycloak-quarkus-dist from Maven Central, fetched
# with mvn into KEYCLOAK_CACHE, default ~/.cache/libmcp, once) started in
# dev mode on a free loopback port with an H2 file database in a temporary
# directory and the realm of realm.json beside this script (the demo's URL
# put in as the tokens' audience). Then:
#   1. mcp-demo-server --auth-issuer <realm> protects its tools (add needs
#      mcp:tools, divide mcp:tools and mcp:admin);
#   2. mcpc auth login: discovery from the demo's 401, authorization code
#      with PKCE through mcpc's loopback redirect; the "browser" is curl,
#      which posts Keycloak's login form as user alice;
#   3. mcpc calls the scoped tool divide with the stored token;
#   4. a token for another audience (scope other-service) gets 401
#      invalid_token, one without mcp:admin gets 403 insufficient_scope on
#      divide (tokens by the password grant of the realm's test client);
#   5. mcpc --grant client_credentials (the realm's confidential client
#      mcp-service) calls divide, then again with --dpop: a DPoP-bound token
#      (cnf.jkt) presented with a proof per request.
# Needs Java 21 or newer (KEYCLOAK_JAVA_HOME, else the newest JDK found in
# /usr/lib/jvm) and mvn. Exit 77 (skipped, with a message) only when Maven
# Central cannot be reached, unless CI=true, where that is a failure.
set -u
MCPC=${1:?usage: run.sh MCPC DEMO}
DEMO=${2:?usage: run.sh MCPC DEMO}
VERSION=${KEYCLOAK_VERSION:-26.7.3}
CACHE=${KEYCLOAK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libmcp}
DIST="$CACHE/keycloak-$VERSION"
HERE=$(cd "$(dirname "$0")" && pwd)
START=$(date +%s)
say() { echo "keycloak: $*" >&2; }
die() { say "$*"; exit 1; }
skip() {
  if [ "${CI:-}" = true ]; then say "$1 (required when CI=true)"; exit 1; fi
  echo "SKIP interop with Keycloak: $1" >&2; exit 77
}

# ---- Java 21+ ------------------------------------------------------------
java_major() { # JAVA_HOME -> major version (0 when none)
  v=$("$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)
  echo "${v:-0}"
}
JH=${KEYCLOAK_JAVA_HOME:-}
if [ -z "$JH" ]; then
  best=0
  for d in /usr/lib/jvm/*; do
    [ -x "$d/bin/java" ] || continue
    m=$(java_major "$d")
    if [ "$m" -gt "$best" ]; then best=$m; JH=$d; fi
  done
fi
[ -n "$JH" ] && [ "$(java_major "$JH")" -ge 21 ] ||
  die "Keycloak $VERSION needs Java 21 or newer (none in /usr/lib/jvm; set KEYCLOAK_JAVA_HOME)"
export JAVA_HOME="$JH"

# ---- the distribution, downloaded once -----------------------------------
if [ ! -x "$DIST/bin/kc.sh" ]; then
  command -v mvn >/dev/null 2>&1 || die "mvn is not installed (scripts/install-deps installs maven)"
  say "downloading org.keycloak:keycloak-quarkus-dist:$VERSION with mvn (once)"
  mkdir -p "$CACHE" || die "cannot create $CACHE"
  DL=$(mktemp -d "$CACHE/download.XXXXXX")
  (cd "$DL" && mvn -B -q dependency:copy \
    "-Dartifact=org.keycloak:keycloak-quarkus-dist:$VERSION:tar.gz" \
    "-DoutputDirectory=$DL" >"$DL/mvn.log" 2>&1) || {
    tail -n 5 "$DL/mvn.log" >&2; rm -rf "$DL"
    skip "mvn could not fetch org.keycloak:keycloak-quarkus-dist:$VERSION from Maven Central (offline?)"
  }
  tar xzf "$DL/keycloak-quarkus-dist-$VERSION.tar.gz" -C "$DL" || { rm -rf "$DL"; die "bad archive"; }
  rm -rf "$DIST" && mv "$DL/keycloak-$VERSION" "$DIST" || { rm -rf "$DL"; die "cannot install into $CACHE"; }
  rm -rf "$DL"
fi

# ---- a free port: bind port 0 and let go ---------------------------------
free_port() {
  python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

W=$(mktemp -d /tmp/mcp-keycloak.XXXXXX)
KC_PID=; DEMO_PID=; MCPC_PID=
cleanup() {
  for p in $MCPC_PID $DEMO_PID; do kill "$p" 2>/dev/null; done
  # kc.sh passes TERM on to its JVM (or has become the JVM); a JVM still
  # starting may not stop for it: KILL after 20 s
  if [ -n "$KC_PID" ]; then
    jvm=$(ps -o pid= --ppid "$KC_PID" 2>/dev/null)
    kill "$KC_PID" 2>/dev/null
    i=0; while kill -0 "$KC_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
    for p in $jvm $KC_PID; do kill -KILL "$p" 2>/dev/null; done
  fi
  rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Keycloak home for this run: its own conf and data (the dev-mode H2 file
# database goes to data/h2, the realm to import), the cached distribution's code (lib/ is shared: the
# dev-mode build it keeps there is reused by the next run).
KC="$W/kc"
mkdir -p "$KC/data/import" && cp -r "$DIST/bin" "$DIST/conf" "$KC/" &&
  for x in lib themes providers; do ln -s "$DIST/$x" "$KC/$x"; done ||
  die "cannot lay out $KC"
DEMO_PORT=$(free_port); KC_PORT=$(free_port); KC_MGMT=$(free_port)
RESOURCE="http://127.0.0.1:$DEMO_PORT/mcp"
ISSUER="http://127.0.0.1:$KC_PORT/realms/mcp"
sed "s#@RESOURCE@#$RESOURCE#g" "$HERE/realm.json" >"$KC/data/import/mcp-realm.json"

say "starting Keycloak $VERSION on 127.0.0.1:$KC_PORT (Java $(java_major "$JAVA_HOME"))"
KC_START=$(date +%s)
JAVA_OPTS_KC_HEAP="-Xms64m -Xmx768m" "$KC/bin/kc.sh" start-dev \
  --http-host=127.0.0.1 --http-port="$KC_PORT" --http-management-port="$KC_MGMT" \
  --import-realm --log-level=warn >"$W/keycloak.log" 2>&1 &
KC_PID=$!
# up when the realm's discovery answers (budget: KEYCLOAK_START_S, 600 s)
budget=${KEYCLOAK_START_S:-600}
until curl -sf "$ISSUER/.well-known/openid-configuration" -o "$W/oidc.json"; do
  kill -0 "$KC_PID" 2>/dev/null || { tail -n 40 "$W/keycloak.log" >&2; die "Keycloak exited"; }
  [ $(($(date +%s) - KC_START)) -lt "$budget" ] || { tail -n 40 "$W/keycloak.log" >&2; die "Keycloak did not start within ${budget} s"; }
  sleep 1
done
say "Keycloak answered after $(($(date +%s) - KC_START)) s"

# ---- the demo, protected by Keycloak --------------------------------------
"$DEMO" --http "127.0.0.1:$DEMO_PORT" --db "$W/demo.db" --auth-issuer "$ISSUER" \
  --auth-scope "add=mcp:tools" --auth-scope "divide=mcp:tools mcp:admin" \
  2>"$W/demo.log" &
DEMO_PID=$!
i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$DEMO_PORT/.well-known/oauth-protected-resource/mcp")" = 200 ]; do
  kill -0 "$DEMO_PID" 2>/dev/null || { cat "$W/demo.log" >&2; die "the demo exited"; }
  i=$((i + 1)); [ $i -lt 300 ] || die "the demo did not start"
  sleep 0.1
done
fail=0
check() { # check WHAT EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then say "ok: $1"; else say "FAIL: $1: expected $2, got $3"; fail=1; fi
}

# ---- 2. mcpc auth login, the browser step done by curl --------------------
export MCPC_TOKEN_FILE="$W/tokens.json"
"$MCPC" -u "$RESOURCE" --client-id mcpc --oauth-mode print auth login \
  >"$W/login.out" 2>"$W/login.err" &
MCPC_PID=$!
i=0; URL=
while [ -z "$URL" ]; do
  URL=$(sed -n 's/^  \(http.*\)$/\1/p' "$W/login.err" 2>/dev/null | head -n1)
  [ -n "$URL" ] && break
  kill -0 "$MCPC_PID" 2>/dev/null || { cat "$W/login.err" >&2; die "mcpc auth login ended before printing the URL"; }
  i=$((i + 1)); [ $i -lt 600 ] || die "mcpc printed no authorization URL"
  sleep 0.1
done
case "$URL" in "$ISSUER/"*) ;; *) die "authorization URL outside the realm: $URL" ;; esac
JAR="$W/cookies"
curl -s -c "$JAR" -b "$JAR" "$URL" -o "$W/login.html" || die "cannot fetch the login page"
ACTION=$(tr '\n' ' ' <"$W/login.html" |
  sed -n 's/.*<form[^>]*id="kc-form-login"[^>]*action="\([^"]*\)".*/\1/p' | sed 's/&amp;/\&/g')
[ -n "$ACTION" ] || ACTION=$(tr '\n' ' ' <"$W/login.html" |
  sed -n 's/.*<form[^>]*action="\([^"]*\)"[^>]*id="kc-form-login".*/\1/p' | sed 's/&amp;/\&/g')
[ -n "$ACTION" ] || { head -c 2000 "$W/login.html" >&2; die "no login form on Keycloak's page"; }
curl -s -c "$JAR" -b "$JAR" -o /dev/null -D "$W/post.headers" \
  --data-urlencode username=alice --data-urlencode password=wonderland \
  --data-urlencode credentialId= "$ACTION" || die "cannot post the login form"
CALLBACK=$(sed -n 's/^[Ll]ocation: \(.*\)$/\1/p' "$W/post.headers" | tr -d '\r' | head -n1)
case "$CALLBACK" in
  http://127.0.0.1:*/callback\?*) ;;
  *) cat "$W/post.headers" >&2; die "Keycloak did not redirect to mcpc's loopback listener" ;;
esac
curl -s -o /dev/null "$CALLBACK" || die "mcpc's loopback listener did not answer"
wait "$MCPC_PID"; rc=$?; MCPC_PID=
check "mcpc auth login (authorization code + PKCE)" 0 "$rc"
[ $rc -eq 0 ] || cat "$W/login.err" >&2
status=$("$MCPC" -u "$RESOURCE" --format json auth status 2>&1)
case "$status" in *'"logged_in": true'* | *'"logged_in":true'*) s=yes ;; *) s="no: $status" ;; esac
check "mcpc auth status" yes "$s"
[ "$(stat -c %a "$MCPC_TOKEN_FILE" 2>/dev/null)" = 600 ] && s=600 || s=$(stat -c %a "$MCPC_TOKEN_FILE" 2>&1)
check "token file mode" 600 "$s"

# ---- 3. the scoped tool, with the stored token ----------------------------
out=$("$MCPC" -u "$RESOURCE" --client-id mcpc --oauth-mode none tools call divide a=84 b=2 2>&1); rc=$?
# the tool's own answer, not any 42 (an error code, a port) in the output
case "$rc:$out" in 0:*'"quotient":42.0'*) s=ok ;; *) s="rc=$rc: $out" ;; esac
check "mcpc tools call divide (needs mcp:tools mcp:admin)" ok "$s"

# ---- 4. refusals: other audience (401), missing scope (403) ---------------
token() { # token SCOPE -> access token of alice from the test client
  curl -s "$ISSUER/protocol/openid-connect/token" -d grant_type=password \
    -d client_id=tester -d username=alice -d password=wonderland \
    --data-urlencode "scope=$1" | sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p'
}
call() { # call TOKEN TOOL -> "HTTP-status WWW-Authenticate"
  curl -s -o "$W/call.body" -D "$W/call.headers" -w '%{http_code}' "$RESOURCE" \
    -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H "Mcp-Name: $2" \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'"$2"'","arguments":{"a":6,"b":3},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
}
other=$(token other-service)
[ -n "$other" ] || die "no token from the realm's test client"
check "token for another audience" 401 "$(call "$other" add)"
grep -qi '^www-authenticate: Bearer error="invalid_token"' "$W/call.headers" && s=yes || s=no
check "  ... WWW-Authenticate invalid_token" yes "$s"
narrow=$(token mcp:tools)
check "mcp:tools token calls add" 200 "$(call "$narrow" add)"
check "mcp:tools token calls divide" 403 "$(call "$narrow" divide)"
grep -i '^www-authenticate:' "$W/call.headers" | grep -q 'error="insufficient_scope"' &&
  grep -i '^www-authenticate:' "$W/call.headers" | grep -q 'scope="mcp:tools mcp:admin"' && s=yes || s=no
check "  ... insufficient_scope naming mcp:tools mcp:admin" yes "$s"
# ---- 5. client credentials, then DPoP-bound (RFC 9449) --------------------
# the realm's confidential client mcp-service, no user: mcpc --grant
# client_credentials (client_secret_basic); with --dpop Keycloak binds the
# token to mcpc's key (cnf.jkt, token_type DPoP) and the demo checks a
# proof on each request
grep -q '"dpop_signing_alg_values_supported"' "$W/oidc.json" && s=yes || s=no
check "Keycloak advertises DPoP" yes "$s"
svc() { "$MCPC" -u "$RESOURCE" --grant client_credentials --client-id mcp-service \
  --client-secret service-secret --oauth-mode none "$@" 2>&1; }
out=$(MCPC_TOKEN_FILE="$W/svc-tokens.json" svc tools call divide a=84 b=2); rc=$?
case "$rc:$out" in 0:*'"quotient":42.0'*) s=ok ;; *) s="rc=$rc: $out" ;; esac
check "mcpc --grant client_credentials tools call divide" ok "$s"
out=$(MCPC_TOKEN_FILE="$W/dpop-tokens.json" svc --dpop tools call divide a=84 b=2); rc=$?
case "$rc:$out" in 0:*'"quotient":42.0'*) s=ok ;; *) s="rc=$rc: $out" ;; esac
check "mcpc --grant client_credentials --dpop tools call divide" ok "$s"
# the DPoP-bound token was used as DPoP: the demo saw no Bearer from it, and
# it was not written down (the key never is)
[ -s "$W/dpop-tokens.json" ] && grep -q access_token "$W/dpop-tokens.json" && s=written || s=kept-in-memory
check "  ... the bound token is not in the token file" kept-in-memory "$s"

if grep -q "AddressSanitizer\|runtime error" "$W/demo.log"; then
  cat "$W/demo.log" >&2; say "FAIL: sanitizer report from the demo"; fail=1
fi
[ $fail -eq 0 ] || { say "demo log:"; tail -n 20 "$W/demo.log" >&2; }
say "wall time $(($(date +%s) - START)) s"
[ $fail -eq 0 ] && echo "keycloak interop: ok"
exit $fail

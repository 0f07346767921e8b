#!/bin/sh
# SPDX-License-Identifier: MIT
# client.sh - mcpc as the "client under test" the conformance suite starts:
#   client.sh URL   (scenario in $MCP_CONFORMANCE_SCENARIO, wire revision in
#   $MCP_CONFORMANCE_PROTOCOL_VERSION)
# Maps each 2025-11-25 client scenario, and the authorization extensions'
# (client credentials, workload identity, enterprise-managed, DPoP), to the
# mcpc command a user would run.
# MCPC is the mcpc binary (set by CMake).
set -u
url=$(eval echo "\${$#}")
proto=${MCP_CONFORMANCE_PROTOCOL_VERSION:-auto}
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  initialize)
    exec "$MCPC" --protocol "$proto" -u "$url" info ;;
  tools_call)
    exec "$MCPC" --protocol "$proto" -u "$url" tools call add_numbers a=5 b=3 ;;
  elicitation-sep1034-client-defaults)
    exec "$MCPC" --protocol "$proto" -u "$url" --elicit accept tools call test_client_elicitation_defaults ;;
  sse-retry)
    exec "$MCPC" --protocol "$proto" -u "$url" tools call test_reconnection ;;
  auth/*)
    # OAuth: the suite's authorization server approves without a user, so
    # mcpc follows its redirect; tokens go to a scratch file per run.
    ctx=${MCP_CONFORMANCE_CONTEXT:-}
    id=$(printf '%s' "$ctx" | sed -n 's/.*"client_id":"\([^"]*\)".*/\1/p')
    secret=$(printf '%s' "$ctx" | sed -n 's/.*"client_secret":"\([^"]*\)".*/\1/p')
    MCPC_TOKEN_FILE=$(mktemp /tmp/mcpc-tokens.XXXXXX); export MCPC_TOKEN_FILE
    rm -f "$MCPC_TOKEN_FILE"
    set -- --protocol "${MCP_CONFORMANCE_PROTOCOL_VERSION:-2025-11-25}" \
      --oauth-mode follow \
      --client-metadata-url https://conformance-test.local/client-metadata.json
    [ -n "$id" ] && set -- "$@" --client-id "$id"
    [ -n "$secret" ] && set -- "$@" --client-secret "$secret"
    # the authorization extensions: the context's key, workload token or ID
    # token go to files, as a user's would be
    field() { printf '%s' "$ctx" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s||"{}")[process.argv[1]];if(v!==undefined)process.stdout.write(String(v))})' "$1"; }
    scratch=$(mktemp -d /tmp/mcpc-auth-ext.XXXXXX)
    case "$MCP_CONFORMANCE_SCENARIO" in
      auth/client-credentials-jwt)
        field private_key_pem >"$scratch/key.pem"
        set -- "$@" --grant client_credentials --client-key "$scratch/key.pem" \
          --client-key-alg "$(field signing_algorithm)" ;;
      auth/client-credentials-*)
        set -- "$@" --grant client_credentials ;;
      auth/wif-jwt-bearer)
        field valid_jwt >"$scratch/workload.jwt"
        set -- "$@" --grant jwt-bearer --assertion-file "$scratch/workload.jwt" ;;
      auth/enterprise-managed-authorization)
        field idp_id_token >"$scratch/id.jwt"
        set -- "$@" --grant enterprise --idp-token-url "$(field idp_token_endpoint)" \
          --idp-client-id "$(field idp_client_id)" --id-token-file "$scratch/id.jwt" ;;
      auth/dpop*)
        set -- "$@" --dpop ;;
    esac
    # list the tools, then call the first (operations may need more scope:
    # step-up); node is there, it runs the suite
    list=$("$MCPC" -u "$url" "$@" --format json tools list); rc=$?
    tool=$(printf '%s' "$list" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{const t=JSON.parse(s).tools;if(t&&t.length)console.log(t[0].name)}catch(e){}})')
    if [ $rc -eq 0 ] && [ -n "$tool" ]; then
      "$MCPC" -u "$url" "$@" tools call "$tool" >/dev/null; rc=$?
    fi
    rm -f "$MCPC_TOKEN_FILE"
    rm -rf "$scratch"
    exit $rc ;;
  *)
    echo "client.sh: no mapping for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
    exit 2 ;;
esac

#!/bin/sh
# SPDX-License-Identifier: MIT
# replay.sh SERVER - `mcp-conformance-server --scenario NAME` prints the
# scenario's requests and the server's exact answers; unknown names exit 2.
set -u
S=${1:?usage: replay.sh SERVER}
fail=0
out=$("$S" --scenario tools-call-simple-text) || fail=1
echo "$out" | grep -q '"text":"This is a simple text response for testing."' ||
  { echo "replay: simple text answer missing: $out" >&2; fail=1; }
out=$("$S" --scenario tools-call-with-progress) || fail=1
[ "$(echo "$out" | grep -c 'notifications/progress')" -eq 3 ] ||
  { echo "replay: expected 3 progress notifications: $out" >&2; fail=1; }
out=$("$S" --scenario tools-call-elicitation) || fail=1
echo "$out" | grep -q '"method":"elicitation/create"' ||
  { echo "replay: no elicitation request: $out" >&2; fail=1; }
# 2026-07-28: a task followed by its id, and the skills
out=$("$S" --scenario tasks-mrtr-input) || fail=1
echo "$out" | grep -q '"status":"input_required"' &&
  echo "$out" | grep -q '"status":"completed"' ||
  { echo "replay: the task did not go input_required -> completed: $out" >&2; fail=1; }
out=$("$S" --scenario sep-2640-skills-enumeration) || fail=1
echo "$out" | grep -q '"digest":"sha256:' ||
  { echo "replay: skills/list without digests: $out" >&2; fail=1; }
"$S" --scenario no-such-scenario >/dev/null; [ $? -eq 2 ] ||
  { echo "replay: unknown scenario must exit 2" >&2; fail=1; }
"$S" --scenario list | grep -q dns-rebinding-protection ||
  { echo "replay: list must name every scenario" >&2; fail=1; }
[ $fail -eq 0 ] && echo "replay: ok"
exit $fail

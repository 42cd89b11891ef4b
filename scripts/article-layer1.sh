#!/usr/bin/env bash
# A faithful re-implementation of the article's Layer 1, written for the benchmark only: read
# the hook JSON with jq, take the assistant text since the last user turn from the transcript
# with jq, keep the last 4000 bytes, and grep -E the trigger and bypass patterns.
set -u
input=$(cat)
transcript=$(printf '%s' "$input" | jq -r '.transcript_path // empty')
last=$(printf '%s' "$input" | jq -r '.last_assistant_message // empty')
text=""
if [ -n "$transcript" ] && [ -f "$transcript" ]; then
    text=$(jq -rs '
        (map(select(.type == "user" and (.message.content | type) == "string")) | length) as $n
        | (to_entries | map(select(.value.type == "user" and (.value.message.content | type) == "string")) | last | .key // -1) as $last
        | .[($last + 1):]
        | map(select(.type == "assistant") | .message.content[]? | select(.type == "text") | .text)
        | join("\n")' "$transcript" 2>/dev/null)
fi
text=$(printf '%s\n%s' "$text" "$last" | tail -c 4000)
if ! printf '%s' "$text" | grep -qE 'Next task.*([Cc]ommit|コミット)|([Cc]ommit|コミット).*(leave it to you|shall I|what should I do|is necessary|let.s do it)|(okay to proceed|shall I proceed|is it alright).*(commit|push|deploy|デプロイ)|(commit|[Cc]ommit).*(proceed to|do|will do)'; then
    exit 0
fi
if printf '%s' "$text" | grep -qE 'committed|commit: [0-9a-f]{7,}|Q[0-9]+:|Which is|test PASS|All PASS|cmp match|CI ✅|smoke test complete|pipeline PASS|pass=[0-9]+ warn=0 fail=0|rc=0|workflow success|build PASS|sequential execution|end-to-end|(commit|push) after|verifier verdict|complete the flow'; then
    exit 0
fi
echo '{"decision":"allow","reason":"layer 1 triggered; layer 2 would run"}'
exit 0

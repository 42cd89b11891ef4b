// hookjudge for OpenCode: before each `bash` tool call, asks `hookjudge gate` about the
// command (in the shape Claude Code's PreToolUse uses) and throws with its reason when it
// denies or wants a person to decide; OpenCode then fails the call and the model reads why.
// A command the gate hands back (hookjudge's boundary) runs in place of the original.
// OpenCode's turn end (`session.idle`) cannot continue the session, so no Stop judge runs.
import { spawnSync } from "node:child_process";

const HOOKJUDGE = @HOOKJUDGE_JS@;
const TIMEOUT_MS = @GATE_TIMEOUT_MS@;
// Whether a machine without hookjudge has a person decide on every shell command (else the
// command runs, with a warning).
const REQUIRED = @REQUIRED_JS@;

export const HookjudgePlugin = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool !== "bash" || typeof output.args?.command !== "string") return;
    const payload = {
      hook_event_name: "PreToolUse",
      session_id: input.sessionID,
      tool_use_id: input.callID,
      cwd: output.args.workdir ?? directory,
      tool_name: "bash",
      tool_input: { command: output.args.command },
    };
    const ran = spawnSync(HOOKJUDGE, ["gate", "--agent", "opencode", "--hook-timeout", String(Math.floor(TIMEOUT_MS / 1000))], {
      input: JSON.stringify(payload),
      encoding: "utf8",
      timeout: TIMEOUT_MS,
    });
    if (ran.error?.code === "ENOENT" && !REQUIRED) {
      console.warn(`hookjudge is not installed on this machine (no \`${HOOKJUDGE}\`), so this command was not checked`);
      return;
    }
    if (ran.error || ran.status !== 0) {
      // The gate fails safe: when it cannot check, a person decides.
      throw new Error(`hookjudge could not check this command (${ran.error?.message ?? `exit ${ran.status}`}), so a human should decide. Stop here and ask the user whether to run it.`);
    }
    const answer = ran.stdout.trim();
    if (!answer) return;
    const { decision, reason, tool_input } = JSON.parse(answer);
    if (decision === "deny" || decision === "ask") throw new Error(reason);
    // With `boundary.mode` `landlock` the gate hands back the command to run in its place.
    if (typeof tool_input?.command === "string") output.args.command = tool_input.command;
  },
});

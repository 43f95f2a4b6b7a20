import type { Effect } from "../transition.js";
import type { DriveContext } from "./drive-context.js";

/** A checkpoint's begin or end: fsynced into the session journal first, then reported as progress. */
export function journalStep(ctx: DriveContext, effect: Extract<Effect, { type: "journal" }>): null {
  const { run, io } = ctx;
  const detail =
    effect.step === "GATE_IN" && effect.phase === "begin"
      ? { mode: run.mode, ...(run.claudeSessionId ? { claudeSession: run.claudeSessionId } : {}) }
      : effect.detail;
  if (effect.phase === "begin") io.journal.begin(effect.step, detail);
  else io.journal.end(effect.step, effect.ok ?? false, detail);
  const refusal =
    effect.ok === false ? (effect.detail as { code?: unknown; message?: unknown } | undefined) : undefined;
  io.emit?.({
    type: "checkpoint",
    step: effect.step,
    phase: effect.phase,
    ...(effect.ok === undefined ? {} : { ok: effect.ok }),
    ...(typeof refusal?.code === "string" ? { code: refusal.code } : {}),
    ...(typeof refusal?.message === "string" ? { message: refusal.message } : {}),
  });
  return null;
}

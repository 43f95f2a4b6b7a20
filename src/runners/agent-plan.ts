import * as z from "zod/mini";
import { OUTPUT_STREAMS } from "./runner-types.js";

/*
 * Kept apart from script.ts so the scripted agent child loads only this schema: the child starts once
 * per phase call, and its start-up is on the critical path of every wave.
 */
/** What the child process executes: placeholders replaced, paths absolute and checked. */
const PlanStep = z.union([
  z.strictObject({ op: z.literal("write"), path: z.string(), content: z.string(), label: z.string() }),
  z.strictObject({ op: z.literal("output"), stream: z.enum(OUTPUT_STREAMS), text: z.string() }),
  z.strictObject({ op: z.literal("progress"), label: z.string(), tool: z.optional(z.string()) }),
  z.strictObject({ op: z.literal("sleep"), ms: z.number() }),
  z.strictObject({ op: z.literal("exit"), code: z.number() }),
  z.strictObject({ op: z.literal("hang"), ignoreSigterm: z.boolean() }),
  z.strictObject({ op: z.literal("crash") }),
]);
export const AgentPlan = z.strictObject({ steps: z.array(PlanStep) });
export type AgentPlan = z.infer<typeof AgentPlan>;
export type PlanStep = z.infer<typeof PlanStep>;

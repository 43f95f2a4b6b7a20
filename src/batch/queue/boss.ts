import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import pg from "pg";
import PgBoss from "pg-boss";
import * as z from "zod/mini";
import { IoError } from "../../shared/index.js";
import { OPERATIONS } from "../../shared/operation-names.js";
import { monotonicMs } from "../../shared/time.js";

/**
 * The queue: pg-boss on PostgreSQL (leases with expiry, retries, singleton keys). One queue of DELEGATE
 * jobs; a job's lease is its `expireInSeconds` (the agent's timeout and a margin): a worker that dies
 * holding one loses it then, and the job is retried on another worker. Baton adds one table,
 * `baton_lease`, where each worker says which machine took which attempt, for `baton status`.
 */
export const QUEUE = "baton-delegate";

/** What crosses the network to a worker: where to fetch, what to run, nothing of the store. */
export const DelegateJob = z.object({
  remote: z.string(),
  base: z.string(),
  session: z.string(),
  task: z.number(),
  operation: z.enum(OPERATIONS),
  prompt: z.string(),
  context: z.record(z.string(), z.unknown()),
  agent: z.record(z.string(), z.unknown()),
  timeoutMs: z.number(),
  /** The repository-relative paths the worker's sandbox keeps read-only; null: the run is unsandboxed on purpose. */
  protect: z.optional(z.nullable(z.array(z.string()))),
  /** Folders whose own entries the sandbox keeps fixed; a job from an older coordinator has none. */
  frozen: z.optional(z.array(z.string())),
});
export type DelegateJob = z.infer<typeof DelegateJob>;

/** What comes back: the branch holding the agent's work, and how the agent ended. */
export const DelegateResult = z.object({
  attempt: z.string(),
  retryCount: z.number(),
  machine: z.string(),
  branch: z.string(),
  commit: z.string(),
  ok: z.boolean(),
  reason: z.optional(z.string()),
  message: z.optional(z.string()),
  output: z.string(),
  usage: z.optional(z.record(z.string(), z.number())),
});
export type DelegateResult = z.infer<typeof DelegateResult>;

export interface QueueOptions {
  /** Seconds between pg-boss's maintenance runs, which expire lost leases (default 60; tests use 1). */
  maintenanceSeconds?: number | undefined;
  onError?: ((error: Error) => void) | undefined;
}

export function machineName(): string {
  return process.env["BATON_MACHINE"] || `${hostname()}:${process.pid}`;
}

/**
 * PostgreSQL's answers when several processes set up the same fresh database at once (pg-boss's schema,
 * the queue, Baton's table): a deadlock, a catalog row or object the other process made first. Setting
 * up again then finds everything there.
 */
const SETUP_RACES = new Set(["40P01", "23505", "42P07", "42710", "42P06"]);
const SETUP_ATTEMPTS = 6;

function isSetupRace(error: unknown): boolean {
  return SETUP_RACES.has(String((error as { code?: unknown })?.code ?? ""));
}

export async function openQueue(url: string, options: QueueOptions = {}): Promise<PgBoss> {
  for (let attempt = 1; ; attempt++) {
    const boss = new PgBoss({
      connectionString: url,
      application_name: "baton",
      maintenanceIntervalSeconds: options.maintenanceSeconds ?? 60,
      schedule: false,
    });
    // pg-boss reports a lost connection as an event; unhandled, it would end the process.
    boss.on("error", (error) => options.onError?.(error));
    try {
      await serialized(url, () => setUpQueue(boss, url));
      return boss;
    } catch (error) {
      await boss.stop({ graceful: false, wait: false }).catch(() => undefined);
      const race = isSetupRace(error) || isSetupRace((error as { cause?: unknown }).cause);
      if (!race || attempt >= SETUP_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 100));
    }
  }
}

/** The advisory lock every Baton process takes to set up the queue's schema: "baton" in ASCII. */
const SETUP_LOCK = 0x626174_6f6e;

/**
 * Runs the queue's setup holding a PostgreSQL advisory lock on its own connection: coordinators and workers
 * started all at once on an empty database migrate one after the other, and each later one finds the
 * schema made. The lock goes with the connection, whatever happens to this process.
 */
async function serialized<T>(url: string, setUp: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: "baton-setup" });
  try {
    await client.connect();
    await client.query("SELECT pg_advisory_lock($1)", [SETUP_LOCK]);
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new IoError(`cannot open the queue at ${redact(url)}: ${(error as Error).message}`, {
      cause: error,
      hint: "Check that PostgreSQL runs there and that the URL's user and password are right.",
    });
  }
  try {
    return await setUp();
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [SETUP_LOCK]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

async function setUpQueue(boss: PgBoss, url: string): Promise<void> {
  try {
    await boss.start();
  } catch (error) {
    if (isSetupRace(error)) throw error;
    throw new IoError(`cannot open the queue at ${redact(url)}: ${(error as Error).message}`, {
      cause: error,
      hint: "Check that PostgreSQL runs there and the URL's user may create tables (pg-boss keeps its own schema).",
    });
  }
  if (!(await boss.getQueue(QUEUE))) {
    try {
      await boss.createQueue(QUEUE, { name: QUEUE, retryLimit: 5, retryDelay: 1 });
    } catch (error) {
      if (!(await boss.getQueue(QUEUE))) throw error;
    }
  }
  await createLeaseTable(boss);
}

/**
 * Baton's lease table beside pg-boss's schema. Two workers starting at once on a fresh database both run
 * `CREATE TABLE IF NOT EXISTS`, and PostgreSQL lets the slower one fail on the catalog's unique index; the
 * table the other one made is then there, which is all that is wanted.
 */
async function createLeaseTable(boss: PgBoss): Promise<void> {
  const db = boss.getDb();
  try {
    await db.executeSql(
      "CREATE TABLE IF NOT EXISTS baton_lease (job_id uuid NOT NULL, retry int NOT NULL, machine text NOT NULL, started_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (job_id, retry))",
      [],
    );
  } catch (error) {
    const found = (await db.executeSql("SELECT to_regclass('baton_lease') IS NOT NULL AS there", [])) as {
      rows: Array<{ there: boolean }>;
    };
    if (!found.rows[0]?.there) throw error;
  }
  // A table made by an older Baton gains the heartbeat column (heartbeat.ts); the statement is idempotent.
  await db.executeSql("ALTER TABLE baton_lease ADD COLUMN IF NOT EXISTS heartbeat_at timestamptz", []);
}

/** A URL as it may be printed: without its password. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
}

/** PostgreSQL gone for a moment (stopped, restarting, a dropped connection): the same call may go through later. */
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|Connection terminated|terminating connection|the database system is (starting up|shutting down)|Client has encountered a connection error/i;
const UNREACHABLE_CODES = new Set(["57P01", "57P02", "57P03", "08000", "08003", "08006"]);

export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return UNREACHABLE_CODES.has(String(e?.code ?? "")) || UNREACHABLE.test(String(e?.message ?? ""));
}

/**
 * Enqueues one job, waiting out a PostgreSQL that is down for a while (up to `patienceMs`): the job's id is
 * chosen here, so a send whose answer was lost with the connection is not sent twice, and its id is known.
 */
export async function sendJob(
  boss: PgBoss,
  data: object,
  options: PgBoss.SendOptions,
  patienceMs = 120_000,
): Promise<string | null> {
  const id = randomUUID();
  const deadline = monotonicMs() + patienceMs;
  let lost = false;
  for (let pause = 250; ; pause = Math.min(pause * 2, 5000)) {
    try {
      const sent = await boss.send(QUEUE, data, { ...options, id });
      if (sent) return sent;
      // Refused as a duplicate: after a lost answer, that is our own first send.
      return lost && (await boss.getJobById(QUEUE, id).catch(() => null)) ? id : null;
    } catch (error) {
      if (!isUnreachable(error) || monotonicMs() + pause > deadline) throw error;
      lost = true;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

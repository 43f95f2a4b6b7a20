import type PgBoss from "pg-boss";
import { monotonicMs } from "../../shared/time.js";
import { QUEUE } from "./boss.js";

/**
 * Leases renewed by heartbeat. pg-boss 10's lease is the job's `expireInSeconds` (the agent's timeout and a
 * margin): a worker killed with its job held it for that long. (pg-boss 12's heartbeats need Node 22, and Baton
 * runs on Node 20.) So a worker beats in `baton_lease` while its agent runs, and any idle worker or waiting
 * coordinator fails an active job whose beat stopped: pg-boss retries it on another worker within seconds. A
 * frozen worker that wakes finds its attempt superseded and delivers nothing (worker.ts). A lease row without a
 * beat (a worker of an older Baton) is left to its expiry.
 */
export const HEARTBEAT_MS = Number(process.env["BATON_QUEUE_HEARTBEAT_MS"] ?? 5000);
export const LOST_AFTER_SECONDS = Number(process.env["BATON_QUEUE_LOST_AFTER_S"] ?? 30);
/** How often one process looks for lost leases; all of them may, since failing a job twice is refused. */
const REAP_EVERY_MS = Math.max(1000, Math.min(HEARTBEAT_MS, 5000));

/** Beats for one attempt until the returned stop is called; a beat that cannot reach PostgreSQL is skipped. */
export function keepLease(boss: PgBoss, jobId: string, retry: number): () => void {
  const beat = () =>
    boss
      .getDb()
      .executeSql("UPDATE baton_lease SET heartbeat_at = now() WHERE job_id = $1 AND retry = $2", [
        jobId,
        retry,
      ])
      .catch(() => undefined);
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Fails every active job whose worker stopped beating; returns their ids. */
export async function failLostLeases(boss: PgBoss): Promise<string[]> {
  const found = (await boss.getDb().executeSql(
    `SELECT j.id FROM pgboss.job j JOIN baton_lease l ON l.job_id = j.id AND l.retry = j.retry_count
      WHERE j.name = $1 AND j.state = 'active' AND l.heartbeat_at IS NOT NULL
        AND l.heartbeat_at < now() - make_interval(secs => $2)`,
    [QUEUE, LOST_AFTER_SECONDS],
  )) as { rows: Array<{ id: string }> };
  const ids = found.rows.map((r) => r.id);
  const message = `worker lost: no heartbeat for ${LOST_AFTER_SECONDS} s`;
  for (const id of ids) await boss.fail(QUEUE, id, { message });
  return ids;
}

/** `failLostLeases` at most every few seconds, for polling loops; never throws. */
export function lostLeaseReaper(boss: PgBoss, onLost?: (ids: string[]) => void): () => Promise<void> {
  let last = -Infinity;
  return async () => {
    if (monotonicMs() - last < REAP_EVERY_MS) return;
    last = monotonicMs();
    try {
      const ids = await failLostLeases(boss);
      if (ids.length > 0) onLost?.(ids);
    } catch {
      // PostgreSQL away: the next poll asks again.
    }
  };
}

import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The header a dashboard page sends its per-start token in. */
export const TOKEN_HEADER = "x-baton-token";

/** A token made when the dashboard starts: only its own pages hold it (no other origin can read them). */
export function newDashboardToken(): string {
  return randomBytes(24).toString("base64url");
}

/**
 * Why a write request is not the dashboard's own page's, or null when it is: it must carry the per-start token,
 * and where the browser says where it comes from (Origin, Sec-Fetch-Site), that must be this very origin. The
 * Host check (DNS rebinding) runs before this, for every route.
 */
export function writeRefusal(request: IncomingMessage, token: string): string | null {
  const given = request.headers[TOKEN_HEADER];
  const sent = Buffer.from(typeof given === "string" ? given : "");
  const expected = Buffer.from(token);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
    return "a write needs the dashboard's token: use the buttons of a page this server gave";
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${request.headers.host ?? ""}`)
    return `a write from another origin (${origin}) is refused`;
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") return `a write from a ${site} page is refused`;
  return null;
}

const MAX_BODY = 64 * 1024;

/** A write's JSON body (at most 64 KiB); null when it is not one. */
export async function jsonBody(request: IncomingMessage): Promise<Record<string, unknown> | null> {
  if (!/^application\/json\b/.test(request.headers["content-type"] ?? "")) return null;
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

import { StringDecoder } from "node:string_decoder";

/**
 * Turns a byte stream into lines. Chunks from a pipe end anywhere (mid-line, mid-CRLF, mid-UTF-8
 * character), so the partial tail is carried over and the decoder keeps split characters whole.
 */
/** A text file's line ending, as Baton writes it back: the file's first one. */
export type LineEnding = "\n" | "\r\n";

export class LineSplitter {
  private readonly decoder = new StringDecoder("utf8");
  private pending = "";

  constructor(
    private readonly onLine: (line: string) => void,
    // A process that never prints a newline must not grow memory without bound; the cap is far above
    // any real line (stream-json lines carrying whole files are a few MB at most).
    private readonly maxLineLength = 8 * 1024 * 1024,
  ) {}

  push(chunk: Buffer | string): void {
    const decoded = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    if (decoded === "") return;
    const text = this.pending + decoded;
    // Only the new text can hold a newline: scanning the carried-over part again would be quadratic.
    let newline = text.indexOf("\n", this.pending.length);
    let start = 0;
    while (newline !== -1) {
      this.emit(text.slice(start, newline));
      start = newline + 1;
      newline = text.indexOf("\n", start);
    }
    this.pending = text.slice(start);
    if (this.pending.length > this.maxLineLength) {
      this.emit(this.pending);
      this.pending = "";
    }
  }

  /** Emits the last line when the stream ended without a newline. */
  end(): void {
    const rest = this.pending + this.decoder.end();
    this.pending = "";
    if (rest !== "") this.emit(rest);
  }

  private emit(line: string): void {
    this.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  }
}

/** Keeps the last `limit` bytes of a stream: enough to show why a run failed, bounded for long runs. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
      this.dropped = true;
    }
  }

  get truncated(): boolean {
    return this.dropped || this.size > this.limit;
  }

  /** The bytes kept, whole: only meaningful when nothing was dropped (see `truncated`). */
  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }

  text(): string {
    let bytes = this.bytes();
    if (bytes.length > this.limit) {
      let start = bytes.length - this.limit;
      // Start on a character boundary: skip UTF-8 continuation bytes (10xxxxxx) cut off from their lead.
      while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
      bytes = bytes.subarray(start);
    }
    return bytes.toString("utf8");
  }
}

/**
 * 1-based line numbers of many offsets in one text: the line starts are found once (on first use), then
 * each lookup is a binary search. Counting from the start for each of thousands of entries was quadratic.
 */
export function lineIndex(text: string): (offset: number) => number {
  let starts: number[] | undefined;
  return (offset) => {
    if (!starts) {
      starts = [0];
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

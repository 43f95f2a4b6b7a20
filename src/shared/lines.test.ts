import { describe, expect, it } from "vitest";
import { LineSplitter, TailBuffer } from "./lines.js";

function split(chunks: Array<Buffer | string>, maxLineLength?: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), maxLineLength);
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

describe("LineSplitter", () => {
  it("joins partial chunks and strips CRLF even when CR and LF arrive apart", () => {
    expect(split(["ab", "c\r", "\nde", "f\n\n", "g\r\nh"])).toEqual(["abc", "def", "", "g", "h"]);
  });

  it("keeps a lone CR inside a line and emits nothing for an empty stream", () => {
    expect(split(["50%\r100%\n"])).toEqual(["50%\r100%"]);
    expect(split([])).toEqual([]);
    expect(split(["one\n"])).toEqual(["one"]);
  });

  it("keeps a multi-byte character split across chunks whole", () => {
    const bytes = Buffer.from("né€😀\n");
    const chunks = Array.from(bytes, (byte) => Buffer.from([byte]));
    expect(split(chunks)).toEqual(["né€😀"]);
  });

  it("splits every byte position of a mixed input the same way", () => {
    const text = "alpha\r\nbéta\n\ngamma 😀\r\ndelta";
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(split([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual([
        "alpha",
        "béta",
        "",
        "gamma 😀",
        "delta",
      ]);
    }
  });

  it("emits an overlong unterminated line early instead of buffering without bound", () => {
    expect(split(["x".repeat(25), "y\n"], 10)).toEqual(["x".repeat(25), "y"]);
  });
});

describe("TailBuffer", () => {
  it("keeps everything under the limit", () => {
    const tail = new TailBuffer(100);
    tail.push(Buffer.from("hello "));
    tail.push(Buffer.from("world"));
    expect(tail.text()).toBe("hello world");
    expect(tail.truncated).toBe(false);
  });

  it("keeps the last bytes and never starts inside a character", () => {
    const tail = new TailBuffer(8);
    for (const part of ["0123", "4567", "89€", "ab"]) tail.push(Buffer.from(part));
    expect(tail.truncated).toBe(true);
    // 15 bytes in all ("€" is 3): the last 8 are exactly "789€ab".
    expect(tail.text()).toBe("789€ab");
    const cut = new TailBuffer(4);
    cut.push(Buffer.from("x€yz"));
    expect(cut.text()).toBe("yz");
  });
});

/**
 * A text file as lines for in-place edits that keep every byte not edited: each stored line keeps a
 * trailing `\r` of its own, so CRLF, LF and mixed files join back exactly; a new or replaced line
 * takes the file's line ending (its first one), so a CRLF file stays CRLF on every line Baton writes.
 */
export class EditableLines {
  private readonly parts: string[];
  private readonly cr: string;

  constructor(text: string) {
    this.parts = text.split("\n");
    const first = text.indexOf("\n");
    this.cr = first > 0 && text.charCodeAt(first - 1) === 13 ? "\r" : "";
  }

  get length(): number {
    return this.parts.length;
  }

  /** Line `index` without its line ending. */
  content(index: number): string {
    const part = this.parts[index] ?? "";
    return part.endsWith("\r") ? part.slice(0, -1) : part;
  }

  contents(): string[] {
    return this.parts.map((_, i) => this.content(i));
  }

  set(index: number, content: string): void {
    this.parts[index] = content + ((this.parts[index] ?? "").endsWith("\r") ? "\r" : "");
  }

  /** Inserts lines before line `index` (index = length appends after the last line's end). */
  insert(index: number, contents: readonly string[]): void {
    // The last part is what follows the final newline ("" for a file that ends with one); a line inserted
    // before it ends with the file's line ending like any other.
    this.parts.splice(index, 0, ...contents.map((c) => c + this.cr));
  }

  text(): string {
    return this.parts.join("\n");
  }
}
